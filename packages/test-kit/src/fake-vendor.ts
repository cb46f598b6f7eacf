import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { embeddingsReply } from './fake-embeddings.js';
import { listenOnLoopback } from './ports.js';
import { checkVendorRules } from './vendor-rules.js';

/** One scripted answer: JSON, a raw SSE body, or no answer at all. */
export type FakeReply = { status?: number; json?: unknown; sse?: string; hang?: boolean };

/** What the fake received. */
export interface FakeRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/**
 * A loopback stand-in for an LLM vendor API (OpenAI, Anthropic, or a compatible server). Requests that
 * break the endpoint's rules (tool blocks without tools, an orphan tool result, …) get the vendor's 400.
 */
export interface FakeVendor {
  baseURL: string;
  /** The model calls received (embeddings requests are kept apart, in `embeddings.requests`). */
  requests: FakeRequest[];
  /**
   * `POST <prefix>/embeddings`, answered apart from the scripted replies: deterministic vectors in which a
   * small bilingual concept table (残高/balance, 空気/air quality, …) shares dimensions.
   */
  embeddings: {
    requests: FakeRequest[];
    /** Answers every embeddings request with this status (a vendor error body) until given undefined. */
    fail(status: number | undefined): void;
  };
  reply(...replies: FakeReply[]): void;
  /** Answers computed from the request, used when no scripted reply is queued. */
  respondWith(handler: (request: FakeRequest) => FakeReply | Promise<FakeReply>): void;
  close(): Promise<void>;
}

export async function startFakeVendor(pathPrefix = '/v1'): Promise<FakeVendor> {
  const queue: FakeReply[] = [];
  const requests: FakeRequest[] = [];
  const embeddingRequests: FakeRequest[] = [];
  let embeddingsFailure: number | undefined;
  let handler: ((request: FakeRequest) => FakeReply | Promise<FakeReply>) | undefined;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const received: FakeRequest = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
      };
      if (/\/embeddings(\?|$)/.test(received.path) && received.method === 'POST') {
        embeddingRequests.push(received);
        const answer: FakeReply = embeddingsFailure
          ? {
              status: embeddingsFailure,
              json: { error: { message: 'The server had an error', type: 'server_error' } },
            }
          : embeddingsReply(received.body);
        response.writeHead(answer.status ?? 200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(answer.json));
        return;
      }
      requests.push(received);
      // The endpoint's own rules come first, as at the vendor: a broken request never reaches the script.
      const next =
        checkVendorRules(received.path, received.body) ??
        queue.shift() ??
        (handler
          ? await handler(received)
          : { status: 500, json: { error: { message: 'the fake has no scripted reply left' } } });
      if (next.hang) return;
      if (next.sse !== undefined) {
        response.writeHead(next.status ?? 200, { 'content-type': 'text/event-stream' });
        response.end(next.sse);
        return;
      }
      response.writeHead(next.status ?? 200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(next.json ?? {}));
    });
  });
  const base = await listenOnLoopback(server);
  return {
    baseURL: `${base}${pathPrefix}`,
    requests,
    embeddings: {
      requests: embeddingRequests,
      fail: (status) => {
        embeddingsFailure = status;
      },
    },
    reply: (...replies) => queue.push(...replies),
    respondWith: (next) => {
      handler = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolvePromise) => server.close(() => resolvePromise()));
    },
  };
}
