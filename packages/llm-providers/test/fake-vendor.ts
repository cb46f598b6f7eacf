import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { dirname, join, resolve } from 'node:path';

/** One scripted answer: JSON, a raw SSE body, or no answer at all. */
export type FakeReply = { status?: number; json?: unknown; sse?: string; hang?: boolean };

/** What the fake received. */
export interface FakeRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** A loopback stand-in for an LLM vendor API (OpenAI, Anthropic, or a compatible server). */
export interface FakeVendor {
  baseURL: string;
  requests: FakeRequest[];
  reply(...replies: FakeReply[]): void;
  /** Answers computed from the request, used when no scripted reply is queued. */
  respondWith(handler: (request: FakeRequest) => FakeReply | Promise<FakeReply>): void;
  close(): Promise<void>;
}

export async function startFakeVendor(pathPrefix = '/v1'): Promise<FakeVendor> {
  const queue: FakeReply[] = [];
  const requests: FakeRequest[] = [];
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
      requests.push(received);
      const next =
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
  await new Promise<void>((resolvePromise) => server.listen(0, '127.0.0.1', resolvePromise));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    baseURL: `http://127.0.0.1:${port}${pathPrefix}`,
    requests,
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

// Recorded vendor responses live in ../shared/fixtures/llm beside the repository (LLM_FIXTURES_DIR overrides).
function locate(): string | undefined {
  if (process.env.LLM_FIXTURES_DIR) return resolve(process.env.LLM_FIXTURES_DIR);
  let folder = resolve(import.meta.dirname);
  while (dirname(folder) !== folder) {
    if (existsSync(join(folder, 'pnpm-workspace.yaml'))) {
      const candidate = resolve(folder, '..', 'shared', 'fixtures', 'llm');
      return existsSync(candidate) ? candidate : undefined;
    }
    folder = dirname(folder);
  }
  return undefined;
}

/** Folder of the recorded LLM responses, or undefined when absent. */
export const llmFixturesDir = locate();
export const skipReason = llmFixturesDir
  ? ''
  : ' (skipped: recorded LLM data not found at ../shared/fixtures/llm; set LLM_FIXTURES_DIR)';

/** A recorded file as text. */
export function fixtureText(path: string): string {
  return readFileSync(join(llmFixturesDir as string, path), 'utf8');
}

/** A recorded JSON file. */
export function fixtureJson(path: string): unknown {
  return JSON.parse(fixtureText(path));
}
