/** Base of the errors `McpClientManager.callTool` throws; `code` is stable for programs. */
export class McpToolError extends Error {
  constructor(
    readonly code:
      | 'TOOL_NOT_FOUND'
      | 'REQUEST_TIMEOUT'
      | 'TOOL_EXECUTION_FAILED'
      | 'CANCELLED'
      | 'MISSING_CREDENTIALS',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** How a request is named in messages: `Tool "x"`, or `Prompt "x"` / `Resource "uri"` for those requests. */
function requestName(what: string): string {
  if (what.startsWith('prompt ')) return `Prompt "${what.slice('prompt '.length)}"`;
  if (what.startsWith('read_resource ')) return `Resource "${what.slice('read_resource '.length)}"`;
  return `Tool "${what}"`;
}

/** No connected server offers a tool of that name. */
export class McpToolNotFoundError extends McpToolError {
  override name = 'McpToolNotFoundError';
  constructor(readonly toolName: string) {
    super('TOOL_NOT_FOUND', `Unknown tool "${toolName}": no connected server offers it`);
  }
}

/** The server did not answer within the timeout; the request was cancelled on the server. */
export class McpToolTimeoutError extends McpToolError {
  override name = 'McpToolTimeoutError';
  constructor(
    readonly toolName: string,
    readonly server: string,
    readonly timeoutMs: number,
    options?: { cause?: unknown },
  ) {
    super(
      'REQUEST_TIMEOUT',
      `${requestName(toolName)} of server "${server}" did not answer within ${timeoutMs} ms`,
      options,
    );
  }
}

/** The server failed, crashed or disconnected while (or before) running the call. */
export class McpToolExecutionError extends McpToolError {
  override name = 'McpToolExecutionError';
  constructor(
    readonly toolName: string,
    readonly server: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(
      'TOOL_EXECUTION_FAILED',
      `${requestName(toolName)} of server "${server}" failed: ${detail}`,
      options,
    );
  }
}

/** The caller aborted the call. */
export class McpToolCancelledError extends McpToolError {
  override name = 'McpToolCancelledError';
  constructor(readonly toolName: string) {
    super('CANCELLED', `${requestName(toolName)} was cancelled`);
  }
}

/** A header template of the server could not be filled: the tool needs the caller's credentials. */
export class McpToolCredentialsError extends McpToolError {
  override name = 'McpToolCredentialsError';
  constructor(
    readonly toolName: string,
    readonly server: string,
    /** The placeholder names (never their values). */
    readonly placeholders: string[],
    /** Set when the credential was sent and the server refused it (its HTTP status: 401 or 403). */
    readonly refused?: number,
  ) {
    super(
      'MISSING_CREDENTIALS',
      refused
        ? `${requestName(toolName)} of server "${server}" was refused with the person's credential (HTTP ${refused}): it may have expired or been revoked`
        : `${requestName(toolName)} of server "${server}" needs credentials that were not supplied: ${placeholders.map((name) => `\${${name}}`).join(', ')}`,
    );
  }
}
