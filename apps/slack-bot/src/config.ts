import {
  type ChatLoopSettings,
  chatLoopFromEnvironment,
  HostError,
  wholeNumber,
} from '@ai-assistant/host-core';

/** Slack's OAuth flow, to install the app in any number of workspaces. */
export interface OAuthConfig {
  clientId: string;
  clientSecret: string;
  /** Signs the `state` of an install so a callback cannot be forged. */
  stateSecret: string;
  /** The bot scopes asked for at install (`SLACK_SCOPES`, default: the manifest's). */
  scopes: string[];
  /** `SLACK_REDIRECT_URI`: the public URL of `/slack/oauth_redirect` (default: the app's setting in Slack). */
  redirectUri?: string;
}

/** The bot scopes of `manifest.yml`, asked for at install. */
export const botScopes = [
  'app_mentions:read',
  'assistant:write',
  'chat:write',
  'files:read',
  'files:write',
  'users:read',
  'commands',
  'channels:history',
  'groups:history',
  'im:history',
  'im:read',
  'im:write',
  'mpim:history',
];

/** Everything the Slack app reads from its environment. */
export interface BotConfig {
  /** The single workspace's bot token; absent when OAuth installs the app in many. */
  botToken?: string;
  /** Set: many workspaces, each with the token its install gave. */
  oauth?: OAuthConfig;
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
  /** Days the bot keeps what was said in its threads (`CONVERSATION_RETENTION_DAYS`, default 30). */
  conversationRetentionDays: number;
  maxConcurrent: number;
  /** How long an approval request waits for the asker (`APPROVAL_TIMEOUT_MS`, default 5 min). */
  approvalTimeoutMs: number;
  /** Approval requests one person may have waiting at once (`APPROVALS_PER_PERSON`, default 3). */
  approvalsPerPerson: number;
  /** Schedules: how often a replica looks for due occurrences, how many it runs at once, and how late one may still run. */
  schedules: { tickMs: number; concurrency: number; graceMs: number };
  /** `LONG_TASK_RETRY_MS`: the first wait after following a task that outlived its answer failed. */
  longTaskRetryMs: number;
  /**
   * `PUBLIC_URL`: where people's browsers reach this bot's HTTP server (no trailing slash). MCP servers
   * with OAuth send people back to `<PUBLIC_URL>/oauth/callback`; unset, they cannot be connected.
   */
  publicUrl?: string;
  /** The chat loop's settings, read as the terminal reads them (rounds, the answer's deadline, …). */
  chat: ChatLoopSettings;
  systemPrompt?: string;
}

/** A variable is missing or malformed; the message names it, never its value. */
export class BotConfigError extends HostError {
  override name = 'BotConfigError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('BOT_CONFIG_INVALID', message, options);
  }
}

/** A yes/no variable (`true`, `1`, `yes`, `on`, any case); unset or blank gives `fallback`. */
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

/** The chat loop's settings; a malformed variable is a BotConfigError naming it. */
function chatLoop(env: NodeJS.ProcessEnv): ChatLoopSettings {
  try {
    return chatLoopFromEnvironment(env);
  } catch (error) {
    throw new BotConfigError((error as Error).message);
  }
}

/** The OAuth settings: all three variables or none. */
function readOAuth(env: NodeJS.ProcessEnv): OAuthConfig | undefined {
  const names = ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET'] as const;
  const [clientId, clientSecret, stateSecret] = names.map((name) => env[name]?.trim() || undefined);
  const missing = names.filter((_, index) => ![clientId, clientSecret, stateSecret][index]);
  if (missing.length === names.length) return undefined;
  if (missing.length > 0)
    throw new BotConfigError(
      `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set: installing in several workspaces needs SLACK_CLIENT_ID, SLACK_CLIENT_SECRET (Basic Information → App Credentials) and SLACK_STATE_SECRET (any long random string, e.g. openssl rand -hex 32)`,
    );
  const scopes = env.SLACK_SCOPES?.split(',')
    .map((scope) => scope.trim())
    .filter(Boolean);
  const redirectUri = env.SLACK_REDIRECT_URI?.trim() || undefined;
  if (redirectUri && !/^https?:\/\//.test(redirectUri))
    throw new BotConfigError('SLACK_REDIRECT_URI must be a URL (https://…/slack/oauth_redirect)');
  return {
    clientId: clientId as string,
    clientSecret: clientSecret as string,
    stateSecret: stateSecret as string,
    scopes: scopes && scopes.length > 0 ? scopes : botScopes,
    ...(redirectUri ? { redirectUri } : {}),
  };
}

/** Reads and checks the Slack app's configuration. */
export function readBotConfig(env: NodeJS.ProcessEnv = process.env): BotConfig {
  const oauth = readOAuth(env);
  const botToken = env.SLACK_BOT_TOKEN?.trim() || undefined;
  if (!botToken && !oauth)
    throw new BotConfigError(
      'SLACK_BOT_TOKEN is not set (the xoxb- token from your Slack app’s OAuth page), nor SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET (to install in several workspaces)',
    );
  const appToken = env.SLACK_APP_TOKEN?.trim() || undefined;
  const signingSecret = env.SLACK_SIGNING_SECRET?.trim() || undefined;
  if (!appToken && !signingSecret) {
    throw new BotConfigError(
      'set SLACK_APP_TOKEN (Socket Mode, no public URL needed) or SLACK_SIGNING_SECRET (HTTP events)',
    );
  }
  const apiUrl = env.SLACK_API_URL?.trim();
  const publicUrl = env.PUBLIC_URL?.trim().replace(/\/+$/, '') || undefined;
  if (publicUrl && !/^https?:\/\/[^\s/]+(\/[^\s]*)?$/.test(publicUrl))
    throw new BotConfigError(
      'PUBLIC_URL must be the URL people’s browsers reach this bot at, e.g. https://bot.example.com (OAuth sends them back to <PUBLIC_URL>/oauth/callback)',
    );
  return {
    ...(publicUrl ? { publicUrl } : {}),
    ...(oauth ? { oauth } : { botToken }),
    appToken,
    signingSecret,
    port: whole(env, 'PORT', 3000, 0) as number,
    httpHost: env.HTTP_HOST?.trim() || undefined,
    healthDetails: flag(env.HEALTH_DETAILS, false),
    apiUrl: apiUrl ? (apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/`) : undefined,
    streaming: flag(env.SLACK_STREAMING, true),
    followUps: flag(env.SLACK_THREAD_FOLLOW_UPS, true),
    historyLimit: whole(env, 'SLACK_HISTORY_LIMIT', 20) as number,
    conversationRetentionDays: whole(env, 'CONVERSATION_RETENTION_DAYS', 30, 1) as number,
    maxConcurrent: whole(env, 'MAX_CONCURRENT_ANSWERS', 8) as number,
    approvalTimeoutMs: whole(env, 'APPROVAL_TIMEOUT_MS', 300_000, 1) as number,
    approvalsPerPerson: whole(env, 'APPROVALS_PER_PERSON', 3, 1) as number,
    schedules: {
      tickMs: whole(env, 'SCHEDULE_TICK_MS', 15_000, 50) as number,
      concurrency: whole(env, 'SCHEDULE_CONCURRENCY', 2, 1) as number,
      graceMs: whole(env, 'SCHEDULE_GRACE_MS', 900_000, 0) as number,
    },
    longTaskRetryMs: whole(env, 'LONG_TASK_RETRY_MS', 10_000, 10) as number,
    chat: chatLoop(env),
    systemPrompt: env.SYSTEM_PROMPT?.trim() || undefined,
  };
}
