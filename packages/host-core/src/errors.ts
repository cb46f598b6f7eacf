/**
 * Every error host-core throws on purpose, with a stable `code` for programs. The chat loop and the
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
  | 'WORKSPACE_BUDGET_INVALID';

/** Base of every error host-core throws on purpose. */
export class HostError extends Error {
  constructor(
    readonly code: HostErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The turn or the request was aborted by its signal: the one way cancellation is spelled. */
export class CancelledError extends HostError {
  override name = 'CancelledError';
  constructor(message = 'The answer was cancelled before it was finished.') {
    super('CANCELLED', message);
  }
}

/** What a failed request was about, beside its code. */
export interface ToolCallErrorDetails {
  /** The model-facing tool name, or `prompt <name>` / `read_resource <uri>`. */
  tool: string;
  server?: string;
  /** For `REQUEST_TIMEOUT`: the timeout that passed. */
  timeoutMs?: number;
  /** For `MISSING_CREDENTIALS`: the placeholder names (never their values). */
  placeholders?: string[];
  /** For `MISSING_CREDENTIALS`: the HTTP status when the credential was sent and refused (401, 403). */
  refused?: number;
  /** For `MISSING_CREDENTIALS`: the scope the server asked for (403 `insufficient_scope`): more access, not a new token. */
  scope?: string;
}

/**
 * A tool call, resource read or prompt get that failed: the one error type of the seam between the
 * chat loop and the tools. Its message is already redacted and fit for the model.
 */
export class ToolCallError extends HostError {
  override name = 'ToolCallError';
  readonly tool: string;
  readonly server: string | undefined;
  readonly timeoutMs: number | undefined;
  readonly placeholders: string[];
  readonly refused: number | undefined;
  readonly scope: string | undefined;

  constructor(
    code: Exclude<HostErrorCode, 'CANCELLED'>,
    message: string,
    details: ToolCallErrorDetails,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.tool = details.tool;
    this.server = details.server;
    this.timeoutMs = details.timeoutMs;
    this.placeholders = details.placeholders ?? [];
    this.refused = details.refused;
    this.scope = details.scope;
  }
}
