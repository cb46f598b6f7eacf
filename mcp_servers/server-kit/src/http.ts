import { randomUUID } from 'node:crypto';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { hostHeaderValidation, originValidation, toNodeHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  type McpServer,
  type ServerNotifier,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { SSEServerTransport } from '@modelcontextprotocol/server-legacy/sse';
import type { Logger } from './log.js';

/** Options of {@link serveHttp}. */
export interface HttpOptions {
  host: string;
  port: number;
  /** Extra Host header names accepted besides the loopback names and `host` (DNS-rebinding protection). */
  allowedHosts?: string[];
  logger: Logger;
  /** Builds one MCP server: per request for 2026-07-28 clients, per session for 2025 clients. */
  newServer: () => McpServer;
  /** A 2025 session unused this long is closed (default 30 minutes). */
  sessionIdleMs?: number;
  /** Live 2025 sessions at most; a new one beyond that closes the least recently used (default 1000). */
  maxSessions?: number;
  /** The clock idleness is measured by (tests); default `Date.now`. */
  now?: () => number;
}

/** A running MCP endpoint over HTTP. */
export interface HttpHandle {
  url: string;
  server: Server;
  /** 2025 sessions currently open (Streamable HTTP and legacy HTTP+SSE). */
  sessionCount(): number;
  /**
   * Publishes change notifications to 2026-07-28 clients' `subscriptions/listen` streams. 2025 sessions
   * hear of changes from their own server instance (`server.sendResourceListChanged()` and the like).
   */
  notify: ServerNotifier;
  close(): Promise<void>;
}

const maxBodyBytes = 1024 * 1024;
const loopbackNames = ['localhost', '127.0.0.1', '[::1]'];

/** The host name of a `host[:port]` or URL, IPv6 in brackets as the SDK's guards compare it. */
function hostnameOf(value: string): string {
  try {
    return new URL(
      value.includes('://')
        ? value
        : `http://${value.includes(':') && !value.startsWith('[') ? `[${value}]` : value}`,
    ).hostname;
  } catch {
    return value;
  }
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}

function sendJsonRpcError(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBodyBytes) throw new Error('request body too large');
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** One 2025 client's session: Streamable HTTP, or the legacy HTTP+SSE transport (2024-11-05). */
type Session =
  | { kind: 'streamable'; transport: WebStandardStreamableHTTPServerTransport; lastUsed: number }
  | { kind: 'sse'; transport: SSEServerTransport; lastUsed: number };

/**
 * Serves MCP at `/mcp` for both protocol eras, behind Host/Origin checks and a body cap:
 * - 2026-07-28 requests (the per-request `_meta` envelope, `server/discover`) go to the SDK's stateless
 *   handler (`createMcpHandler`), one server instance per request;
 * - 2025 requests (`initialize`, then `mcp-session-id`) keep a session each, as 2025 clients expect,
 *   capped in number and closed when idle;
 * - the legacy HTTP+SSE transport for clients that only speak it: `GET /mcp/sse` opens the stream,
 *   `POST /mcp/messages?sessionId=…` carries requests; its sessions share the cap.
 */
export async function serveHttp(options: HttpOptions): Promise<HttpHandle> {
  const allowed = [...new Set([...loopbackNames, hostnameOf(options.host), ...(options.allowedHosts ?? [])])];
  const validateHost = hostHeaderValidation(allowed);
  const validateOrigin = originValidation(allowed);
  // Insertion order is recency order: a used session is moved to the end, the first is the least recent.
  const sessions = new Map<string, Session>();
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const maxSessions = options.maxSessions ?? 1000;
  const now = options.now ?? Date.now;
  const onerror = (error: Error) => options.logger.warn('MCP request failed', { error: error.message });
  const touch = (id: string) => {
    const session = sessions.get(id);
    if (!session) return undefined;
    sessions.delete(id);
    session.lastUsed = now();
    sessions.set(id, session);
    return session;
  };
  /** Adds a session; past the limit the least recently used one is closed. */
  const admit = (id: string, session: Session) => {
    sessions.set(id, session);
    if (sessions.size > maxSessions) {
      const [oldest, least] = sessions.entries().next().value as [string, Session];
      options.logger.warn('session limit reached; closing the least recently used', {
        session: oldest,
        maxSessions,
      });
      sessions.delete(oldest);
      void least.transport.close();
    }
  };
  const expire = () => {
    const cutoff = now() - idleMs;
    for (const [id, session] of sessions) {
      if (session.lastUsed > cutoff) break; // the rest were used more recently
      options.logger.info('session expired', { session: id });
      void session.transport.close();
    }
  };
  const sweeper = setInterval(expire, Math.min(idleMs, 60_000));
  sweeper.unref();

  const modern = createMcpHandler(() => options.newServer(), {
    legacy: 'reject',
    maxRequestBodySize: maxBodyBytes,
    onerror,
  });

  /** A 2025 request on `/mcp`: the session it names, or a new one for `initialize`. */
  const serveLegacy = async (request: Request): Promise<Response> => {
    const sessionId = request.headers.get('mcp-session-id') ?? undefined;
    const found = sessionId === undefined ? undefined : touch(sessionId);
    const existing = found?.kind === 'streamable' ? found.transport : undefined;
    if (request.method !== 'POST') {
      if (!existing) return jsonRpcError(400, -32000, 'Bad request: unknown or missing session id');
      return existing.handleRequest(request);
    }
    let body: unknown;
    try {
      body = JSON.parse(await request.text());
    } catch (error) {
      return jsonRpcError(400, -32700, `Parse error: ${String(error)}`);
    }
    if (existing) return existing.handleRequest(request, { parsedBody: body });
    if (sessionId !== undefined || !isInitializeRequest(body)) {
      return jsonRpcError(
        sessionId === undefined ? 400 : 404,
        -32000,
        'Bad request: send initialize first, then the mcp-session-id you were given',
      );
    }
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id): void => admit(id, { kind: 'streamable', transport, lastUsed: now() }),
    });
    transport.onclose = () => {
      if (transport.sessionId && sessions.get(transport.sessionId)?.transport === transport)
        sessions.delete(transport.sessionId);
    };
    const mcpServer = options.newServer();
    await mcpServer.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody: body });
    // A refused initialize (a wrong Accept header, a malformed request) started no session: nothing of
    // it may stay behind, or unauthenticated requests would pile up server objects.
    if (!transport.sessionId || sessions.get(transport.sessionId)?.transport !== transport)
      await mcpServer.close();
    return response;
  };

  // The SDK's own classification decides the era, so this routing never disagrees with createMcpHandler.
  const serveMcp = toNodeHandler(
    {
      fetch: async (request: Request) =>
        (await isLegacyRequest(request, undefined, { maxRequestBodySize: maxBodyBytes }))
          ? serveLegacy(request)
          : modern.fetch(request),
    },
    { maxRequestBodySize: maxBodyBytes, onerror },
  );

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://placeholder');
    const path = url.pathname;
    if (path !== '/mcp' && path !== '/mcp/sse' && path !== '/mcp/messages')
      return sendJsonRpcError(response, 404, 'Not found: the MCP endpoint is /mcp (legacy SSE: /mcp/sse)');
    // DNS-rebinding protection: a browser page on another name must not reach this server.
    if (!validateHost(request, response) || !validateOrigin(request, response)) return;
    if (path === '/mcp/sse') return openSse(request, response);
    if (path === '/mcp/messages') return postSse(url.searchParams.get('sessionId') ?? '', request, response);
    return serveMcp(request, response);
  };

  /** `GET /mcp/sse`: a legacy client's stream; its endpoint event names where to POST. */
  const openSse = async (request: IncomingMessage, response: ServerResponse) => {
    if (request.method !== 'GET') return sendJsonRpcError(response, 405, 'Method not allowed: GET /mcp/sse');
    const transport = new SSEServerTransport('/mcp/messages', response);
    const mcpServer = options.newServer();
    // Closing the server closes the transport, which calls this again: once is enough.
    let closed = false;
    transport.onclose = () => {
      if (closed) return;
      closed = true;
      if (sessions.get(transport.sessionId)?.transport === transport) sessions.delete(transport.sessionId);
      void mcpServer.close();
    };
    admit(transport.sessionId, { kind: 'sse', transport, lastUsed: now() });
    await mcpServer.connect(transport);
  };

  /** `POST /mcp/messages?sessionId=…`: one JSON-RPC message of a legacy client's session. */
  const postSse = async (id: string, request: IncomingMessage, response: ServerResponse) => {
    if (request.method !== 'POST')
      return sendJsonRpcError(response, 405, 'Method not allowed: POST /mcp/messages');
    const session = touch(id);
    if (session?.kind !== 'sse')
      return sendJsonRpcError(response, 404, 'Unknown session: open /mcp/sse first');
    let body: unknown;
    try {
      body = await readJson(request);
    } catch (error) {
      return sendJsonRpcError(response, 400, `Parse error: ${String(error)}`);
    }
    await session.transport.handlePostMessage(request, response, body);
  };

  const server = createHttpServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      options.logger.error('HTTP request failed', { error: String(error) });
      if (!response.headersSent) sendJsonRpcError(response, 500, 'Internal server error');
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const hostForUrl = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${hostForUrl}:${port}/mcp`,
    server,
    sessionCount: () => sessions.size,
    notify: modern.notify,
    async close() {
      clearInterval(sweeper);
      await Promise.allSettled([
        modern.close(),
        ...[...sessions.values()].map((session) => session.transport.close()),
      ]);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
