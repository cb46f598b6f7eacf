import { HostError } from '@ai-assistant/chat-types';

/** What one OAuth answer may weigh: metadata, a registration, tokens are a few kilobytes. */
export const oauthMaxResponseBytes = 1024 * 1024;
/** How long one OAuth request may take, its body included. */
export const oauthTimeoutMs = 15_000;

/** Caps on every request the OAuth client makes (discovery, registration, tokens, revocation). */
export interface OAuthFetchLimits {
  /** Bytes of one response body (default {@link oauthMaxResponseBytes}). */
  maxResponseBytes?: number;
  /** Milliseconds for one request, from sending it to the last byte of its answer (default {@link oauthTimeoutMs}). */
  timeoutMs?: number;
}

/** An OAuth request refused by its caps: an answer too large, or too slow. */
export class OAuthResponseError extends HostError {
  override name = 'OAuthResponseError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('AUTHORIZATION_FAILED', message, options);
  }
}

/** Statuses whose response has no body (a Response cannot be built with one). */
const bodiless = new Set([101, 204, 205, 304]);

/**
 * `fetchFn` with a deadline on each request (its body included) and a cap on each response body: an
 * endpoint that streams forever or never finishes fails with an error naming the address and the cap,
 * and the rest of the body is never read.
 */
export function boundedFetch(fetchFn: typeof fetch, limits: OAuthFetchLimits = {}): typeof fetch {
  const maxBytes = limits.maxResponseBytes ?? oauthMaxResponseBytes;
  const timeoutMs = limits.timeoutMs ?? oauthTimeoutMs;
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    // The address without its query: enough to say which endpoint, and nothing a query may carry.
    const where = `${url.origin}${url.pathname}`.slice(0, 200);
    const late = (cause?: unknown) =>
      new OAuthResponseError(
        `${where} did not answer within ${seconds(timeoutMs)}: check that the server is up and its address is right`,
        cause === undefined ? undefined : { cause },
      );
    const tooLarge = () =>
      new OAuthResponseError(
        `the answer of ${where} is larger than ${megabytes(maxBytes)}, far more than OAuth metadata or tokens take: it is refused unread`,
      );
    const deadline = AbortSignal.timeout(timeoutMs);
    const callerSignal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    const signal = callerSignal ? AbortSignal.any([callerSignal, deadline]) : deadline;
    let response: Response;
    try {
      response = await fetchFn(input, { ...init, signal });
    } catch (error) {
      throw deadline.aborted ? late(error) : error;
    }
    if (!response.body || bodiless.has(response.status)) return response;
    if (Number(response.headers.get('content-length')) > maxBytes) {
      await response.body.cancel().catch(() => undefined);
      throw tooLarge();
    }
    const reader = response.body.getReader();
    let size = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          controller.error(deadline.aborted ? late(error) : error);
          return;
        }
        if (chunk.done) return controller.close();
        size += chunk.value.byteLength;
        if (size > maxBytes) {
          controller.error(tooLarge());
          await reader.cancel().catch(() => undefined);
          return;
        }
        controller.enqueue(chunk.value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  }) as typeof fetch;
}

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);
const megabytes = (bytes: number) =>
  bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MB` : `${bytes} bytes`;
