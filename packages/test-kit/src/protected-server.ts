import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { McpServer } from '@modelcontextprotocol/server';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { jsonOf } from './token-server.js';

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

/** Scopes a {@link startProtectedServer} asks for. */
export interface ScopeOptions {
  /** The `scope` its 401 challenge names (default none: clients fall back to `scopes_supported`). */
  challengeScope?: string;
  /**
   * Tools that need a scope beyond the token's (tool → scope): each answers `<tool> done for <sub>`,
   * and a call whose token lacks the scope gets 403 `insufficient_scope` naming it (RFC 6750 §3.1).
   */
  toolScopes?: Record<string, string>;
}

/**
 * An MCP server (Streamable HTTP, stateless, the SDK's) protected as MCP authorization says: RFC 9728
 * metadata at `/.well-known/oauth-protected-resource/mcp` naming `issuer`; every request without a
 * valid bearer token (a JWT of `issuer` whose audience is this server, checked against its JWKS) gets
 * 401 with `WWW-Authenticate: Bearer resource_metadata="…"`. Its tool `whoami` answers with the token's
 * subject.
 */
export async function startProtectedServer(
  issuer: string,
  url?: string,
  options: ScopeOptions = {},
): Promise<ProtectedServer> {
  const seen: ProtectedServer['seen'] = [];
  const bearers: string[] = [];
  let refused = 0;
  const withdrawn = new Set<string>();
  const refusedTokens = new Set<string>();
  let challengeMetadataUrl: string | undefined;
  /** Each token's scopes, as its claims say. */
  const granted = new Map<string, string[]>();
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
      if (token) {
        const { payload } = await jwtVerify(token, keys, { issuer, audience: resource });
        sub = payload.sub;
        granted.set(token, String(payload.scope ?? '').split(' '));
      }
    } catch {
      sub = undefined;
    }
    if (!sub || withdrawn.has(sub) || refusedTokens.has(token ?? '')) {
      refused += 1;
      const scope = options.challengeScope ? `, scope="${options.challengeScope}"` : '';
      response.writeHead(401, {
        'www-authenticate': `Bearer resource_metadata="${challengeMetadataUrl ?? metadataUrl}"${scope}`,
      });
      response.end();
      return;
    }
    const subject = sub;
    // A tool that needs more than the token grants: 403 insufficient_scope, before the call runs.
    const body = request.method === 'POST' ? await jsonOf(request) : undefined;
    const called = (body as { method?: string; params?: { name?: string } } | undefined)?.params?.name;
    const needed =
      called && (body as { method?: string }).method === 'tools/call' && options.toolScopes?.[called];
    if (needed && !granted.get(token as string)?.includes(needed)) {
      response.writeHead(403, {
        'www-authenticate': `Bearer error="insufficient_scope", scope="${needed}", resource_metadata="${metadataUrl}", error_description="${called} needs ${needed}"`,
      });
      response.end();
      return;
    }
    const server = new McpServer({ name: 'protected', version: '1.0.0' });
    server.registerTool(
      'whoami',
      { description: 'Who the bearer token says the caller is', annotations: { readOnlyHint: true } },
      async () => {
        seen.push({ sub: subject, tool: 'whoami' });
        return { content: [{ type: 'text', text: `you are ${subject}` }] };
      },
    );
    for (const tool of Object.keys(options.toolScopes ?? {}))
      server.registerTool(tool, { description: `${tool}, with its scope` }, async () => {
        seen.push({ sub: subject, tool });
        return { content: [{ type: 'text', text: `${tool} done for ${subject}` }] };
      });
    const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
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
