import { HostError, type HostErrorCode } from '@ai-assistant/chat-types';

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
