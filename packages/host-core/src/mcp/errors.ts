import { CancelledError, ToolCallError } from '../errors.js';

// The request path's failures, as the seam's one error type. Each message names the request the way
// people and the model read it.

/** How a request is named in messages: `Tool "x"`, or `Prompt "x"` / `Resource "uri"` for those requests. */
function requestName(what: string): string {
  if (what.startsWith('prompt ')) return `Prompt "${what.slice('prompt '.length)}"`;
  if (what.startsWith('read_resource ')) return `Resource "${what.slice('read_resource '.length)}"`;
  return `Tool "${what}"`;
}

/** No connected server offers a tool of that name. */
export function toolNotFound(tool: string): ToolCallError {
  return new ToolCallError('TOOL_NOT_FOUND', `Unknown tool "${tool}": no connected server offers it`, {
    tool,
  });
}

/** The server did not answer within the timeout; the request was cancelled on the server. */
export function requestTimedOut(
  tool: string,
  server: string,
  timeoutMs: number,
  options?: { cause?: unknown },
): ToolCallError {
  return new ToolCallError(
    'REQUEST_TIMEOUT',
    `${requestName(tool)} of server "${server}" did not answer within ${timeoutMs} ms`,
    { tool, server, timeoutMs },
    options,
  );
}

/** The server failed, crashed or disconnected while (or before) running the call. */
export function requestFailed(
  tool: string,
  server: string,
  detail: string,
  options?: { cause?: unknown },
): ToolCallError {
  return new ToolCallError(
    'TOOL_EXECUTION_FAILED',
    `${requestName(tool)} of server "${server}" failed: ${detail}`,
    { tool, server },
    options,
  );
}

/** The caller aborted the request. */
export function requestCancelled(tool: string): CancelledError {
  return new CancelledError(`${requestName(tool)} was cancelled`);
}

/**
 * A header template of the server could not be filled (the tool needs the caller's credentials), or
 * the credential was sent and refused (`refused`: the HTTP status, 401 or 403).
 */
export function credentialsNeeded(
  tool: string,
  server: string,
  placeholders: string[],
  refused?: number,
): ToolCallError {
  return new ToolCallError(
    'MISSING_CREDENTIALS',
    refused
      ? `${requestName(tool)} of server "${server}" was refused with the person's credential (HTTP ${refused}): it may have expired or been revoked`
      : `${requestName(tool)} of server "${server}" needs credentials that were not supplied: ${placeholders.map((name) => `\${${name}}`).join(', ')}`,
    { tool, server, placeholders, ...(refused ? { refused } : {}) },
  );
}

/**
 * The person's credential works but does not reach this far: the server asked for more access (403
 * `insufficient_scope`, naming `scope`). They connect again and grant it; nothing expired.
 */
export function moreAccessNeeded(tool: string, server: string, scope: string | undefined): ToolCallError {
  return new ToolCallError(
    'MISSING_CREDENTIALS',
    `${requestName(tool)} of server "${server}" needs more permission than the person's credential grants${scope ? ` (the server asks for scope "${scope}")` : ''}: connecting the server again asks them for it`,
    { tool, server, placeholders: ['token'], refused: 403, ...(scope ? { scope } : {}) },
  );
}
