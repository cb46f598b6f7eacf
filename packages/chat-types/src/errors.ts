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
  | 'WORKSPACE_BUDGET_INVALID';

/** Base of every error the packages throw on purpose: a stable `code` beside the message. */
export class HostError extends Error {
  constructor(
    readonly code: HostErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
