import { HostError } from '@ai-assistant/chat-types';
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { AuthorizationError } from '../oauth/authorization-error.js';
import {
  credentialsNeeded,
  moreAccessNeeded,
  requestCancelled,
  requestFailed,
  requestTimedOut,
} from './errors.js';
import { MissingCredentialsError } from './local-servers.js';

/** The HTTP status a request was refused with, where the SDK's HTTP transport said (`SdkHttpError`). */
function httpStatusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' ? status : undefined;
}

/** A short, one-line description of anything thrown by the SDK, a transport or a local server. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // The SDK prefixes "MCP error <code>: " to a server's message that often carries the same prefix.
  const message = error.message
    .replace(/(MCP error -?\d+: )(?=MCP error -?\d+: )/g, '')
    .replace(/\s+/g, ' ')
    .slice(0, 300);
  const status = httpStatusOf(error);
  return typeof status === 'number' && status >= 400 && status < 600 ? `HTTP ${status}: ${message}` : message;
}

/**
 * A server answered 403 `insufficient_scope` (MCP authorization's scope challenge, RFC 6750 §3.1):
 * the token is good but does not reach this far. Thrown from the transport's fetch, so the SDK does
 * not try to refresh its way out (a refresh never adds scope); the person connects again instead.
 */
export class InsufficientScopeError extends HostError {
  override name = 'InsufficientScopeError';
  constructor(
    readonly server: string,
    readonly scope: string | undefined,
    description: string | undefined,
  ) {
    super(
      'MISSING_CREDENTIALS',
      `the server asks for more permission${scope ? ` (scope "${scope}")` : ''}${description ? `: ${description.slice(0, 200)}` : ''}`,
    );
  }
}

/** What a failed request was, for its error. */
export interface FailedRequest {
  /** The tool name, or `prompt <name>` / `read_resource <uri>`. */
  what: string;
  server: string;
  timeoutMs: number;
  signal?: AbortSignal;
  redact: (text: string) => string;
  /** The request carried the asking person's own credential (`${token}`). */
  personal?: boolean;
}

/** The one mapping from SDK, transport and local errors to the seam's errors (text redacted). */
export function toRequestError(error: unknown, request: FailedRequest): Error {
  const { what, server } = request;
  if (request.signal?.aborted) return requestCancelled(what);
  const timedOut =
    (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) ||
    (error instanceof HostError && error.code === 'REQUEST_TIMEOUT');
  if (timedOut) return requestTimedOut(what, server, request.timeoutMs, { cause: error });
  if (error instanceof MissingCredentialsError) return credentialsNeeded(what, server, error.placeholders);
  // A person's OAuth connection the host cannot refresh now (an outage): the grant stands, try again.
  if (error instanceof AuthorizationError && error.retryable)
    return requestFailed(what, server, request.redact(error.message), { cause: error });
  // More access asked for (403 insufficient_scope): the person grants it by connecting again; the
  // credential itself is fine.
  if (error instanceof InsufficientScopeError)
    return request.personal
      ? moreAccessNeeded(what, server, error.scope)
      : requestFailed(what, server, request.redact(error.message), { cause: error });
  // A person's OAuth connection the host cannot get a token for: they connect again.
  if (error instanceof AuthorizationError) return credentialsNeeded(what, server, ['token'], 401);
  // A server that refuses the person's own credential: it expired or was revoked, and they can fix it.
  const status = httpStatusOf(error);
  if (request.personal && (status === 401 || status === 403))
    return credentialsNeeded(what, server, ['token'], status);
  return requestFailed(what, server, request.redact(describeError(error)), { cause: error });
}

/** Rejects with `message` when `promise` takes longer than `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
