import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { McpServer } from '@modelcontextprotocol/server';
import { listenOnLoopback } from './ports.js';

/** A person's test token: `tok-<name>-<random>`. Servers answer with the name, never the token. */
export const tokenOf = (name: string) => `tok-${name}-${Math.random().toString(36).slice(2, 12)}`;

const ownerOf = (authorization: string | undefined) => /^Bearer tok-([a-z]+)-/.exec(authorization ?? '')?.[1];

/** A running {@link startTokenServer}. */
export interface TokenServer {
  url: string;
  /** Each `whoami` call, with the owner of the token it carried. */
  calls: Array<{ owner: string | undefined }>;
  /** From now on the token is refused with 401, as a server does with an expired or revoked one. */
  revoke(token: string): void;
  /**
   * From now on a tool call with the token gets 403 `insufficient_scope` naming `scope` (the token
   * works, but not that far), as a server does that needs more access for its tools.
   */
  askMore(token: string, scope: string): void;
  close(): void;
}

/**
 * A Streamable HTTP MCP server that reads the bearer token of every request; with `requireToken` it
 * answers 401 to any request without a valid one (`initialize` included), as servers that authenticate
 * the connection do. `whoami` answers whose token it got; alice gets one more tool, `alice_only`.
 */
export async function startTokenServer(options: { requireToken?: boolean } = {}): Promise<TokenServer> {
  const calls: TokenServer['calls'] = [];
  const revoked = new Set<string>();
  const more = new Map<string, string>();
  const server = await startStatelessServer(
    (mcp, request) => {
      const owner = ownerOf(request.headers.authorization);
      mcp.registerTool(
        'whoami',
        { description: 'Who the token belongs to', annotations: { readOnlyHint: true } },
        async () => {
          calls.push({ owner });
          await new Promise((resolve) => setTimeout(resolve, 50));
          return { content: [{ type: 'text', text: `you are ${owner ?? 'nobody'}` }] };
        },
      );
      if (owner === 'alice')
        mcp.registerTool(
          'alice_only',
          { description: 'Only alice has this', annotations: { readOnlyHint: true } },
          async () => ({ content: [{ type: 'text', text: 'for alice' }] }),
        );
    },
    (request, response, body) => {
      const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
      const scope = bearer === undefined ? undefined : more.get(bearer);
      if (scope && (body as { method?: string } | undefined)?.method === 'tools/call') {
        response
          .writeHead(403, { 'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"` })
          .end();
        return false;
      }
      const refused = bearer !== undefined && revoked.has(bearer);
      if (!refused && (!options.requireToken || ownerOf(request.headers.authorization))) return true;
      response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return false;
    },
  );
  return {
    ...server,
    calls,
    revoke: (token) => void revoked.add(token),
    askMore: (token, scope) => void more.set(token, scope),
  };
}

/**
 * A stateless Streamable HTTP MCP server on loopback: each request gets a fresh `McpServer` that
 * `register` fills (it may read the request); `admit` may answer a request itself (401) instead.
 */
export async function startStatelessServer(
  register: (mcp: McpServer, request: IncomingMessage) => void,
  admit: (request: IncomingMessage, response: ServerResponse, body: unknown) => boolean = () => true,
): Promise<{ url: string; close(): void }> {
  const server = createServer(async (request, response) => {
    // The body is read first, so `admit` can look at the JSON-RPC message (which tool is called).
    const body = request.method === 'POST' ? await jsonOf(request) : undefined;
    if (!admit(request, response, body)) return;
    const mcp = new McpServer({ name: 'remote', version: '1.0.0' });
    register(mcp, request);
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    response.on('close', () => void transport.close());
    await mcp.connect(transport);
    await transport.handleRequest(request, response, body);
  });
  const base = await listenOnLoopback(server);
  return {
    url: `${base}/mcp`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** A request's JSON body; undefined when it is empty or not JSON. */
export function jsonOf(request: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    let text = '';
    request.on('data', (chunk) => {
      text += chunk;
    });
    request.on('end', () => {
      try {
        resolve(JSON.parse(text));
      } catch {
        resolve(undefined);
      }
    });
  });
}
