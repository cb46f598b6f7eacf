import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from 'jose';
import { listenOnLoopback } from './ports.js';

/** Options of {@link startProtectedMcpServer}. */
export interface ProtectedMcpServerOptions {
  /** The authorization server whose JWT access tokens are accepted (its metadata names the JWKS). */
  issuer: string;
  /** `scopes_supported` of the protected-resource metadata (default `mcp:read mcp:write`; `[]` leaves it out). */
  scopes?: string[];
  /** Adds `scope="…"` to the 401 challenge (MCP's scope selection: the client asks for these first). */
  challengeScope?: string;
}

/** A running {@link startProtectedMcpServer}, and whose tokens reached it. */
export interface ProtectedMcpServer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`: also the resource tokens must be issued for. */
  url: string;
  /** Its RFC 9728 protected-resource metadata, `…/.well-known/oauth-protected-resource/mcp`. */
  prmUrl: string;
  /** Each request admitted to /mcp: the token's subject, the token, and the tool of a `tools/call`. */
  seen: Array<{ sub: string; token: string; tool?: string }>;
  close(): Promise<void>;
}

const writeScope = 'mcp:write';
const maxBodyBytes = 1024 * 1024;

/**
 * An MCP server (the SDK's, Streamable HTTP, stateless) protected as MCP authorization says: RFC 9728
 * metadata naming `issuer`; every /mcp request without a valid bearer token (a JWT of `issuer` whose
 * audience is this server's /mcp URL, checked against the issuer's JWKS) gets 401 with
 * `WWW-Authenticate: Bearer resource_metadata="…"`. Tools: `whoami` (the token's sub, scope, jti) and
 * `needs_write`, which a token without `mcp:write` reaches only as HTTP 403 `insufficient_scope` (step-up).
 */
export async function startProtectedMcpServer(
  options: ProtectedMcpServerOptions,
): Promise<ProtectedMcpServer> {
  const issuer = options.issuer.replace(/\/$/, '');
  const jwksUri = await jwksUriOf(issuer);
  const keys = createRemoteJWKSet(new URL(jwksUri));
  const seen: ProtectedMcpServer['seen'] = [];
  const http = createServer();
  const base = await listenOnLoopback(http);
  const resource = `${base}/mcp`;
  const prmUrl = `${base}/.well-known/oauth-protected-resource/mcp`;
  const scopes = options.scopes ?? ['mcp:read', 'mcp:write'];
  const metadata = {
    resource,
    authorization_servers: [issuer],
    ...(scopes.length > 0 ? { scopes_supported: scopes } : {}),
    bearer_methods_supported: ['header'],
  };

  const challenge = (response: ServerResponse, status: 401 | 403, parameters: Record<string, string>) => {
    const fields = Object.entries({ ...parameters, resource_metadata: prmUrl })
      .map(([name, value]) => `${name}="${value}"`)
      .join(', ');
    response.writeHead(status, {
      'www-authenticate': `Bearer ${fields}`,
      'content-type': 'application/json',
    });
    response.end(JSON.stringify({ error: parameters.error ?? 'unauthorized' }));
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', base).pathname;
    if (path === '/.well-known/oauth-protected-resource/mcp' && request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(metadata));
      return;
    }
    if (path !== '/mcp') {
      response
        .writeHead(404, { 'content-type': 'text/plain' })
        .end(`no ${path} here: the MCP endpoint is /mcp`);
      return;
    }
    const token = /^Bearer ([^\s]+)$/i.exec(request.headers.authorization ?? '')?.[1];
    const claims = token ? await verified(token, keys, issuer, resource) : undefined;
    const challengeScope: Record<string, string> = options.challengeScope
      ? { scope: options.challengeScope }
      : {};
    if (!token || !claims?.sub) {
      challenge(response, 401, token ? { error: 'invalid_token', ...challengeScope } : challengeScope);
      return;
    }
    let body: unknown;
    if (request.method === 'POST') {
      const read = await readJson(request);
      if (!read.ok) {
        response.writeHead(read.status, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message: read.message }, id: null }),
        );
        return;
      }
      body = read.value;
    }
    const tool = calledTool(body);
    const granted = String(claims.scope ?? '').split(' ');
    if (tool === 'needs_write' && !granted.includes(writeScope)) {
      challenge(response, 403, {
        error: 'insufficient_scope',
        scope: [...new Set([...granted.filter(Boolean), writeScope])].join(' '),
      });
      return;
    }
    const sub = claims.sub;
    seen.push({ sub, token, ...(tool ? { tool } : {}) });
    const mcp = createProtectedMcp(claims);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    response.on('close', () => void transport.close());
    await mcp.connect(transport);
    await transport.handleRequest(request, response, body);
  };

  http.on('request', (request: IncomingMessage, response: ServerResponse) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(`test-kit protected MCP server failed: ${String(error)}`);
    });
  });
  return {
    url: resource,
    prmUrl,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** The tools, answering from the token's claims. */
function createProtectedMcp(claims: JWTPayload) {
  const mcp = new McpServer({ name: 'protected', version: '1.0.0' });
  const identity = {
    sub: String(claims.sub),
    scope: String(claims.scope ?? ''),
    jti: String(claims.jti ?? ''),
  };
  mcp.registerTool(
    'whoami',
    { description: "The bearer token's subject, scope and id", annotations: { readOnlyHint: true } },
    async () => ({
      content: [{ type: 'text', text: JSON.stringify(identity) }],
      structuredContent: identity,
    }),
  );
  mcp.registerTool(
    'needs_write',
    { description: `Needs the ${writeScope} scope`, annotations: { readOnlyHint: false } },
    async () => ({ content: [{ type: 'text', text: `written by ${identity.sub}` }] }),
  );
  return mcp;
}

/** The claims of a JWT access token of `issuer` for `audience`, or undefined when it is not one. */
async function verified(
  token: string,
  keys: ReturnType<typeof createRemoteJWKSet>,
  issuer: string,
  audience: string,
): Promise<JWTPayload | undefined> {
  try {
    return (await jwtVerify(token, keys, { issuer, audience, typ: 'at+jwt' })).payload;
  } catch {
    return undefined;
  }
}

/** The tool name of a `tools/call` (the first, in a batch). */
function calledTool(body: unknown): string | undefined {
  for (const message of Array.isArray(body) ? body : [body]) {
    const call = message as { method?: unknown; params?: { name?: unknown } } | null;
    if (call?.method === 'tools/call' && typeof call.params?.name === 'string') return call.params.name;
  }
  return undefined;
}

async function readJson(
  request: IncomingMessage,
): Promise<{ ok: true; value: unknown } | { ok: false; status: number; message: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBodyBytes) return { ok: false, status: 413, message: `body over ${maxBodyBytes} bytes` };
    chunks.push(chunk);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch {
    return { ok: false, status: 400, message: 'Parse error: the body is not JSON' };
  }
}

/** The authorization server's `jwks_uri`, from its RFC 8414 or OpenID metadata. */
async function jwksUriOf(issuer: string): Promise<string> {
  for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
    const response = await fetch(`${issuer}${path}`, { signal: AbortSignal.timeout(5000) });
    if (!response.ok) {
      await response.body?.cancel();
      continue;
    }
    const { jwks_uri: jwksUri } = (await response.json()) as { jwks_uri?: unknown };
    if (typeof jwksUri === 'string') return jwksUri;
  }
  throw new Error(`startProtectedMcpServer: ${issuer} publishes no jwks_uri in its metadata; is it running?`);
}
