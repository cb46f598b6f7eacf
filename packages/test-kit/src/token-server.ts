import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
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
    (request, response) => {
      const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
      const refused = bearer !== undefined && revoked.has(bearer);
      if (!refused && (!options.requireToken || ownerOf(request.headers.authorization))) return true;
      response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return false;
    },
  );
  return { ...server, calls, revoke: (token) => void revoked.add(token) };
}

/**
 * A stateless Streamable HTTP MCP server on loopback: each request gets a fresh `McpServer` that
 * `register` fills (it may read the request); `admit` may answer a request itself (401) instead.
 */
export async function startStatelessServer(
  register: (mcp: McpServer, request: IncomingMessage) => void,
  admit: (request: IncomingMessage, response: ServerResponse) => boolean = () => true,
): Promise<{ url: string; close(): void }> {
  const server = createServer(async (request, response) => {
    if (!admit(request, response)) return;
    const mcp = new McpServer({ name: 'remote', version: '1.0.0' });
    register(mcp, request);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    response.on('close', () => void transport.close());
    await mcp.connect(transport);
    await transport.handleRequest(request, response);
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
