/**
 * Every error the packages throw on purpose, with a stable `code` for programs. The chat loop and the
 * apps branch on `code`, never on where an error came from.
 */
export type HostErrorCode =
  /** A configuration file that cannot be used (file, server and field named). */
  | 'MCP_CONFIG_INVALID'
  /** An environment variable is malformed (named, never its value). */
  | 'ENVIRONMENT_INVALID'
  /** An OpenAPI document that cannot be used. */
  | 'OPENAPI_SPEC_INVALID'
  /** An expression the calculator cannot evaluate. */
  | 'CALCULATION_FAILED'
  /** No server of the view offers the tool (or the server, for a resource or prompt). */
  | 'TOOL_NOT_FOUND'
  /** The server did not answer in time; the request was cancelled on the server. */
  | 'REQUEST_TIMEOUT'
  /** The server failed, crashed, is down or restarting, or answered with something unusable. */
  | 'TOOL_EXECUTION_FAILED'
  /** The call needs the asking person's credential: missing, or sent and refused. */
  | 'MISSING_CREDENTIALS'
  /** The caller's signal aborted the turn or the request. */
  | 'CANCELLED'
  /** Connecting a server with OAuth failed at a named step (discovery, registration, the redirect, tokens). */
  | 'AUTHORIZATION_FAILED'
  /** A workspace's server points at a loopback, private, link-local or metadata address. */
  | 'REFUSED_ADDRESS'
  /** A server a workspace adds cannot be used as given (its name, address or document). */
  | 'WORKSPACE_SERVER_INVALID'
  /** A workspace's budget its admins may not set (above the operator's ceiling). */
  | 'WORKSPACE_BUDGET_INVALID'
  /** A response body grew past its limit (a server's answer, a document read). */
  | 'RESPONSE_TOO_LARGE'
  /** A tool ranking by meaning is not ready yet (the tools' vectors are being computed). */
  | 'EMBEDDINGS_PENDING'
  /** A person asked for a conversation they may not read (another channel's, one they took no part in). */
  | 'CONVERSATION_REFUSED'
  /** No language model is configured, or its settings are wrong (the variable named, never a value). */
  | 'LLM_NOT_CONFIGURED'
  /** The store could not be opened: a bad key, an unreachable database, a failed migration. */
  | 'STORE_START_FAILED'
  /** A stored credential cannot be read with the configured keys (the server named, never the secret). */
  | 'CREDENTIAL_UNREADABLE'
  /** The Slack app's settings are missing or malformed (the variable named, never its value). */
  | 'BOT_CONFIG_INVALID'
  /** A server cannot take a person's credential (unknown, not personal, no store, no OAuth). */
  | 'CONNECT_REFUSED'
  /** The port the app would listen on is taken. */
  | 'PORT_IN_USE'
  /** Slack could not be reached or refused the bot's credentials at start-up (the variable named). */
  | 'SLACK_START_FAILED'
  /** Slack refused a read for its rate limit. */
  | 'HISTORY_RATE_LIMITED'
  /** A file a person attached cannot be read (not Slack's, refused, unreadable in time). */
  | 'ATTACHMENT_REFUSED'
  /** A file a person attached is larger than the limit. */
  | 'ATTACHMENT_TOO_LARGE'
  /** A schedule's times cannot be read, or it would run too often (what to write instead is said). */
  | 'SCHEDULE_INVALID';

/**
 * Base of every error the packages throw on purpose: a stable `code` beside the message. `Code` is
 * {@link HostErrorCode} unless a package's errors have their own union (the providers' `AUTH`,
 * `RATE_LIMITED`, …).
 */
export class HostError<Code extends string = HostErrorCode> extends Error {
  constructor(
    readonly code: Code,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
