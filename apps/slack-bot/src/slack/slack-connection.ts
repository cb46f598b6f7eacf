import { HostError } from '@ai-assistant/host-core';
/** The bot's link to Slack as `/healthz` shows it: `starting` until Slack has answered, then `ready`. */
export interface SlackConnectionState {
  state: 'starting' | 'ready' | 'failed';
  /** What is being waited for, or why it failed; built from Slack's error codes, never a token. */
  reason?: string;
}

/** Slack could not be reached or refused the bot's credentials at start-up; the message says what to fix. */
export class SlackStartError extends HostError {
  override name = 'SlackStartError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('SLACK_START_FAILED', message, options);
  }
}

// Slack's answers that mean the credential itself is wrong (docs.slack.dev: auth.test errors).
const refusedCredential = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'not_allowed_token_type',
]);

/**
 * Why a start-up call to Slack failed, in words an operator can act on. `variable` is the setting that
 * holds the credential the call used (SLACK_BOT_TOKEN for auth.test, SLACK_APP_TOKEN for Socket Mode).
 */
export function slackStartFailure(error: unknown, step: string, variable: string): string {
  const failure = error as { code?: string; data?: { error?: string }; original?: { code?: string } };
  const slackError = failure?.data?.error;
  if (slackError && refusedCredential.has(slackError))
    return `Slack refused the credential at ${step} (${slackError}): check ${variable}`;
  if (slackError)
    return `Slack answered ${step} with ${slackError}: check ${variable} and the app's settings`;
  const network = failure?.original?.code ?? (failure?.code?.startsWith('E') ? failure.code : undefined);
  if (network)
    return `cannot reach Slack at ${step} (${network}): check the network, or SLACK_API_URL if set`;
  return `${step} failed (${failure?.code ?? 'unknown error'}): see the log`;
}
