import { HostError } from '@ai-assistant/chat-types';
/** Which vendor adapter raised an error. */
export type ProviderName = 'openai' | 'anthropic' | 'gemini' | 'openai-compatible';

/** What an {@link LLMProviderError} is made of. */
export interface LLMProviderErrorOptions {
  provider: ProviderName;
  /** HTTP status, or undefined for connection failures and timeouts. */
  status?: number;
  retryable: boolean;
  /** A sentence fit to show an end user (no vendor detail, no secrets). */
  userMessage: string;
  /** For logs: the vendor's words, redacted. */
  message: string;
  code: LLMProviderError['code'];
  cause?: unknown;
}

/** One error type for every vendor failure: who, what status, retryable or not, and safe words for users. */
/** What went wrong at a vendor, as programs branch on it. */
export type LLMProviderErrorCode =
  | 'AUTH'
  | 'RATE_LIMITED'
  | 'SERVER'
  | 'TIMEOUT'
  | 'CONNECTION'
  | 'CONTEXT_TOO_LONG'
  | 'NOT_FOUND'
  | 'BAD_REQUEST'
  | 'ABORTED';

export class LLMProviderError extends HostError<LLMProviderErrorCode> {
  override name = 'LLMProviderError';
  readonly provider: ProviderName;
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly userMessage: string;

  constructor(options: LLMProviderErrorOptions) {
    super(options.code, options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.provider = options.provider;
    this.status = options.status;
    this.retryable = options.retryable;
    this.userMessage = options.userMessage;
  }
}

/** Removes secrets from vendor text; the app hands in host-core's redactor (`redactor.redact`). */
export type Redact = (text: string) => string;

/** The redaction used when none is handed in: the provider's own API key. */
export function redactKey(apiKey: string | undefined): Redact {
  return (text) => (apiKey && apiKey.length >= 6 ? text.split(apiKey).join('[REDACTED]') : text);
}

/** Whether an HTTP status is worth retrying (408, 409, 429, 5xx). */
export function isRetryableStatus(status: number | undefined): boolean {
  return status === 408 || status === 409 || status === 429 || (status !== undefined && status >= 500);
}

/** A base URL as it may be shown: scheme, host and path, without userinfo, query or fragment. */
function shownEndpoint(baseURL: string): string {
  try {
    const url = new URL(baseURL);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return 'an unreadable base URL';
  }
}

/**
 * Maps anything an SDK throws (APIError with `status`, connection errors, timeouts) to
 * {@link LLMProviderError}. Vendor text is redacted before it is kept. `baseURL`, when given, is named
 * (without credentials or query) in the message of a service that could not be reached.
 */
export function toProviderError(
  provider: ProviderName,
  error: unknown,
  redact: Redact,
  baseURL?: string,
): LLMProviderError {
  if (error instanceof LLMProviderError) return error;
  // SDK error classes keep name "Error"; their constructor names tell them apart.
  const name = `${(error as { name?: string })?.name ?? ''} ${(error as object)?.constructor?.name ?? ''}`;
  const status = (error as { status?: unknown })?.status;
  const httpStatus = typeof status === 'number' ? status : undefined;
  const raw = error instanceof Error ? error.message : String(error);
  const detail = redact(raw).slice(0, 500);
  const make = (
    code: LLMProviderError['code'],
    userMessage: string,
    retryable = isRetryableStatus(httpStatus),
  ) =>
    new LLMProviderError({
      provider,
      status: httpStatus,
      retryable,
      userMessage,
      message: `${provider}${httpStatus ? ` ${httpStatus}` : ''}: ${detail}${
        code === 'CONNECTION' && baseURL ? ` (tried ${shownEndpoint(baseURL)})` : ''
      }`,
      code,
      cause: error,
    });
  if (/UserAbort|AbortError/.test(name)) return make('ABORTED', 'The request was cancelled.', false);
  if (/Timeout/i.test(name))
    return make('TIMEOUT', 'The AI service did not answer in time. Please try again.', true);
  if (httpStatus === undefined)
    return make('CONNECTION', 'The AI service could not be reached. Please try again later.', true);
  if (httpStatus === 401 || httpStatus === 403) {
    return make(
      'AUTH',
      'The AI service rejected our credentials; an administrator needs to check the API key.',
    );
  }
  if (httpStatus === 429)
    return make(
      'RATE_LIMITED',
      'The AI service is busy or over its quota right now. Please try again in a minute.',
    );
  if (httpStatus === 404)
    return make(
      'NOT_FOUND',
      'The configured AI model was not found; an administrator needs to check LLM_MODEL.',
    );
  if (httpStatus >= 500)
    return make('SERVER', 'The AI service is having trouble right now. Please try again later.');
  if (/context.length|context_length|too long|maximum context|too many tokens/i.test(raw)) {
    return make(
      'CONTEXT_TOO_LONG',
      'This conversation is too long for the model. Please start a new thread.',
    );
  }
  return make('BAD_REQUEST', 'The AI service could not process this request.');
}
