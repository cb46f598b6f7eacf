import { wholeNumber } from '@ai-assistant/host-core';

/** Everything the Slack app reads from its environment. */
export interface BotConfig {
  botToken: string;
  /** Set: Socket Mode. Unset: the HTTP receiver. */
  appToken?: string;
  signingSecret?: string;
  port: number;
  /** Address the HTTP server binds (default: 127.0.0.1 in Socket Mode, every interface in HTTP mode). */
  httpHost?: string;
  /** `/healthz` also shows each server's (redacted) failure reason. */
  healthDetails: boolean;
  /** Web API base URL (GovSlack, proxies, tests); ends with a slash. */
  apiUrl?: string;
  streaming: boolean;
  /** Answer follow-ups in threads the bot is part of, without a new mention. */
  followUps: boolean;
  historyLimit: number;
  maxConcurrent: number;
  /** Longest an answer may take once started (`ANSWER_TIMEOUT_MS`, default 120 000). */
  answerTimeoutMs: number;
  /** How long an approval request waits for the asker (`APPROVAL_TIMEOUT_MS`, default 5 min). */
  approvalTimeoutMs: number;
  toolLoopMaxIterations?: number;
  toolCallTimeoutMs?: number;
  /** Tool calls run per round (`MAX_TOOL_CALLS_PER_ROUND`, default 16). */
  maxToolCallsPerRound?: number;
  systemPrompt?: string;
}

/** A variable is missing or malformed; the message names it, never its value. */
export class BotConfigError extends Error {
  override name = 'BotConfigError';
}

function flag(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value.trim() === '') return fallback;
  return /^(true|1|yes|on)$/i.test(value.trim());
}

/** A whole-number variable; a malformed one is a BotConfigError naming it. */
function whole(env: NodeJS.ProcessEnv, name: string, fallback: number | undefined, minimum = 1) {
  try {
    return wholeNumber(env, name, fallback, minimum);
  } catch (error) {
    throw new BotConfigError((error as Error).message);
  }
}

/** Reads and checks the Slack app's configuration. */
export function readBotConfig(env: NodeJS.ProcessEnv = process.env): BotConfig {
  const botToken = env.SLACK_BOT_TOKEN?.trim();
  if (!botToken)
    throw new BotConfigError('SLACK_BOT_TOKEN is not set (the xoxb- token from your Slack app’s OAuth page)');
  const appToken = env.SLACK_APP_TOKEN?.trim() || undefined;
  const signingSecret = env.SLACK_SIGNING_SECRET?.trim() || undefined;
  if (!appToken && !signingSecret) {
    throw new BotConfigError(
      'set SLACK_APP_TOKEN (Socket Mode, no public URL needed) or SLACK_SIGNING_SECRET (HTTP events)',
    );
  }
  const apiUrl = env.SLACK_API_URL?.trim();
  return {
    botToken,
    appToken,
    signingSecret,
    port: whole(env, 'PORT', 3000, 0) as number,
    httpHost: env.HTTP_HOST?.trim() || undefined,
    healthDetails: flag(env.HEALTH_DETAILS, false),
    apiUrl: apiUrl ? (apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/`) : undefined,
    streaming: flag(env.SLACK_STREAMING, false),
    followUps: flag(env.SLACK_THREAD_FOLLOW_UPS, true),
    historyLimit: whole(env, 'SLACK_HISTORY_LIMIT', 20) as number,
    maxConcurrent: whole(env, 'MAX_CONCURRENT_ANSWERS', 8) as number,
    answerTimeoutMs: whole(env, 'ANSWER_TIMEOUT_MS', 120_000, 1) as number,
    approvalTimeoutMs: whole(env, 'APPROVAL_TIMEOUT_MS', 300_000, 1) as number,
    toolLoopMaxIterations: whole(env, 'TOOL_LOOP_MAX_ITERATIONS', undefined),
    toolCallTimeoutMs: whole(env, 'TOOL_CALL_TIMEOUT_MS', undefined),
    maxToolCallsPerRound: whole(env, 'MAX_TOOL_CALLS_PER_ROUND', undefined),
    systemPrompt: env.SYSTEM_PROMPT?.trim() || undefined,
  };
}
