import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createRemoteJWKSet, jwtVerify } from 'jose';

/** A protected MCP server on loopback, and whose tokens reached it. */
export interface ProtectedServer {
  /** The MCP endpoint (`…/mcp`): also the resource tokens are issued for. */
  url: string;
  /** Each authorized request's subject and tool (tools/call only). */
  seen: Array<{ sub: string; tool?: string }>;
  /** Every bearer token that reached it, valid or not (to check which tokens a client sent where). */
  bearers: string[];
  /** Requests refused with 401. */
  refused: number;
  /** From now on, refuses (401) every token of this subject, as a server does whose grant was withdrawn. */
  refuse(sub: string): void;
  /** From now on, refuses (401) this one access token, as a server does for a token revoked before its expiry. */
  refuseToken(token: string): void;
  /**
   * From now on, its 401 challenges name this resource metadata instead of its own (a server that
   * turned hostile, pointing clients at another authorization server).
   */
  challengeWith(resourceMetadataUrl: string): void;
  close(): Promise<void>;
}

/**
 * An MCP server (Streamable HTTP, stateless, the SDK's) protected as MCP authorization says: RFC 9728
 * metadata at `/.well-known/oauth-protected-resource/mcp` naming `issuer`; every request without a
 * valid bearer token (a JWT of `issuer` whose audience is this server, checked against its JWKS) gets
 * 401 with `WWW-Authenticate: Bearer resource_metadata="…"`. Its tool `whoami` answers with the token's
 * subject.
 */
export async function startProtectedServer(issuer: string, url?: string): Promise<ProtectedServer> {
  const seen: ProtectedServer['seen'] = [];
  const bearers: string[] = [];
  let refused = 0;
  const withdrawn = new Set<string>();
  const refusedTokens = new Set<string>();
  let challengeMetadataUrl: string | undefined;
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const base = url ?? `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const resource = `${base}/mcp`;
  const metadataUrl = `${base}/.well-known/oauth-protected-resource/mcp`;
  const keys = createRemoteJWKSet(new URL(`${issuer}/jwks`));
  http.on('request', async (request, response) => {
    if (request.url === '/.well-known/oauth-protected-resource/mcp') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          resource,
          authorization_servers: [issuer],
          scopes_supported: ['mcp:read', 'mcp:write'],
          bearer_methods_supported: ['header'],
        }),
      );
      return;
    }
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (token) bearers.push(token);
    let sub: string | undefined;
    try {
      if (token) sub = (await jwtVerify(token, keys, { issuer, audience: resource })).payload.sub;
    } catch {
      sub = undefined;
    }
    if (!sub || withdrawn.has(sub) || refusedTokens.has(token ?? '')) {
      refused += 1;
      response.writeHead(401, {
        'www-authenticate': `Bearer resource_metadata="${challengeMetadataUrl ?? metadataUrl}"`,
      });
      response.end();
      return;
    }
    const subject = sub;
    const server = new McpServer({ name: 'protected', version: '1.0.0' });
    server.registerTool(
      'whoami',
      { description: 'Who the bearer token says the caller is', annotations: { readOnlyHint: true } },
      async () => {
        seen.push({ sub: subject, tool: 'whoami' });
        return { content: [{ type: 'text', text: `you are ${subject}` }] };
      },
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    await transport.handleRequest(request, response);
  });
  return {
    url: resource,
    seen,
    bearers,
    get refused() {
      return refused;
    },
    refuse: (sub) => {
      withdrawn.add(sub);
    },
    refuseToken: (token) => {
      refusedTokens.add(token);
    },
    challengeWith: (url) => {
      challengeMetadataUrl = url;
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
