import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { HostError, type ServerStatus } from '@ai-assistant/host-core';
import type { SlackConnectionState } from './slack/slack-connection.js';

/** Slack's event and interaction payloads are a few KB; anything past this is refused unread. */
export const maxRequestBodyBytes = 1024 * 1024;

/** The store's part of `/healthz`. */
export interface StoreHealthPart {
  engine: string;
  reachable: boolean;
}

/**
 * What `/healthz` says. Without `details` it carries states and counts only, no free text besides the
 * Slack connection's reason (built from Slack's error codes). A store that cannot be reached, or a Slack
 * connection that failed, makes it `unavailable`; one still being made, `starting` (both served with
 * 503, so a load balancer sends nothing until the bot can answer).
 */
export function healthReport(
  servers: ServerStatus[] | undefined,
  details: boolean,
  store: StoreHealthPart,
  slack?: SlackConnectionState,
) {
  const list = servers ?? [];
  // A server being restarted is down until it is back.
  const down = list
    .filter((server) => server.state === 'failed' || server.state === 'restarting')
    .map((server) => server.name);
  return {
    status:
      !store.reachable || slack?.state === 'failed'
        ? 'unavailable'
        : slack?.state === 'starting'
          ? 'starting'
          : down.length > 0
            ? 'degraded'
            : 'ok',
    ...(slack ? { slack } : {}),
    store,
    mcp: {
      enabled: servers !== undefined,
      ...(down.length > 0 ? { down } : {}),
      servers: list.map((server) => ({
        name: server.name,
        transport: server.transport,
        state: server.state,
        toolCount: server.toolCount,
        ...(server.protocolVersion ? { protocolVersion: server.protocolVersion } : {}),
        ...(details && server.reason ? { reason: server.reason } : {}),
      })),
    },
  };
}

/** The bot's one HTTP server: `/healthz`, and in HTTP mode Bolt's receiver behind a body-size cap. */
export interface HttpServerOptions {
  /** The `/healthz` report; `status: 'unavailable'` or `'starting'` is served with 503. */
  health: () => { status: string } | Promise<{ status: string }>;
  /** Bolt's HTTPReceiver listener; absent in Socket Mode, where only `/healthz` is served. */
  slack?: (request: IncomingMessage, response: ServerResponse) => void;
  /**
   * GET routes answered before Slack's (the OAuth install and its redirect); a key ending in `/`
   * answers every path below it.
   */
  pages?: Record<string, (request: IncomingMessage, response: ServerResponse) => Promise<void>>;
  /**
   * POST routes of the bot's own pages (a Connect confirmation, an App view's requests); each reads its
   * own small body. A key ending in `/` answers every path below it.
   */
  forms?: Record<string, (request: IncomingMessage, response: ServerResponse) => Promise<void>>;
  /**
   * Why this replica must not take Slack's requests now (Slack not reached yet, its store unreachable),
   * answered with 503; undefined while it may.
   */
  refusing?: () => string | undefined;
  maxBodyBytes?: number;
}

function refuse(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'text/plain', connection: 'close' });
  response.end(message);
}

/** Reads a request body up to `limit` bytes; undefined (after answering 413) when it is larger. */
function readCapped(
  request: IncomingMessage,
  response: ServerResponse,
  limit: number,
): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      refuse(response, 413, `request body over ${limit} bytes`);
      request.destroy();
      return resolve(undefined);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        refuse(response, 413, `request body over ${limit} bytes`);
        request.destroy();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', () => resolve(undefined));
  });
}

/** The route of a folder (a key ending in `/`) that holds `path`. */
function below<T>(routes: Record<string, T> | undefined, path: string): T | undefined {
  const key = Object.keys(routes ?? {}).find((route) => route.endsWith('/') && path.startsWith(route));
  return key === undefined ? undefined : routes?.[key];
}

export function createHttpServer(options: HttpServerOptions): Server {
  const limit = options.maxBodyBytes ?? maxRequestBodyBytes;
  return createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path === '/healthz' && request.method === 'GET') {
      const report = await options.health();
      const serving = report.status !== 'unavailable' && report.status !== 'starting';
      response.writeHead(serving ? 200 : 503, { 'content-type': 'application/json' });
      response.end(JSON.stringify(report));
      return;
    }
    const page =
      request.method === 'GET'
        ? (options.pages?.[path] ?? below(options.pages, path))
        : request.method === 'POST'
          ? (options.forms?.[path] ?? below(options.forms, path))
          : undefined;
    const refused = options.refusing?.();
    if (refused) {
      // Slack retries a refused event later; by then this replica is ready, or one with its store takes it.
      response.setHeader('retry-after', '5');
      return refuse(response, 503, refused);
    }
    if (page) {
      await page(request, response).catch(() => {
        if (!response.headersSent) refuse(response, 500, 'install failed');
      });
      return;
    }
    if (!options.slack) return refuse(response, 404, 'not found');
    const body = await readCapped(request, response, limit);
    if (!body) return;
    // Bolt reads a body that is already buffered as `rawBody` instead of reading the stream again.
    options.slack(Object.assign(request, { rawBody: body }), response);
  });
}

/** The port is taken; the message names it and the variable that moves it. */
export class PortInUseError extends HostError {
  override name = 'PortInUseError';
  constructor(message: string) {
    super('PORT_IN_USE', message);
  }
}

/** Starts listening; a busy port is an error that names it and the variable that moves it. */
export function listen(server: Server, port: number, host: string | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new PortInUseError(
              `port ${port} is already in use${host ? ` on ${host}` : ''}; set PORT to another port`,
            )
          : error,
      );
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}
