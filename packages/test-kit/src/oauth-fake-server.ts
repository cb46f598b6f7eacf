import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { McpServer } from '@modelcontextprotocol/server';

/**
 * A protected MCP endpoint and its authorization server in one loopback process, every answer
 * adjustable: for the OAuth client's failure paths (a hostile or broken server). The real
 * authorization server of the end-to-end tests is oidc-provider (test-kit).
 */
export interface FakeAuthOptions {
  /** The authorization server the resource names (default: this server). */
  authorizationServer?: string;
  /** The resource its protected-resource metadata claims (default: its own `/mcp`). */
  resource?: string;
  /** The issuer the metadata claims (default: this server). */
  issuer?: string;
  /** Override metadata fields (e.g. a plain-http token endpoint). */
  metadata?: Record<string, unknown>;
  /**
   * What the token endpoint answers (read per request: a test may change it): a refresh may be
   * refused (`invalid_grant`, `invalid_client`), meet an outage (`unavailable`: HTTP 503; `drop`: the
   * connection is closed), or get garbage.
   */
  token?: 'ok' | 'garbage' | 'invalid_grant' | 'invalid_client' | 'unavailable' | 'drop';
  /** Whether a refresh issues a new refresh token (default true); false: the old one stays in use. */
  rotate?: boolean;
  /** The loopback address to listen on (default 127.0.0.1). */
  host?: string;
  /** What /authorize sends back besides the code (e.g. `{ error: 'access_denied' }` or another iss). */
  redirectExtra?: Record<string, string>;
  expiresIn?: number;
  /** The scope the 401 challenge names (`WWW-Authenticate: Bearer scope="…"`). */
  challengeScope?: string;
  /**
   * Serve MCP (the SDK's server, tool `whoami`) to requests with a token this server issued, unless
   * `demand` names a scope for the token's granted scopes: then 403 `insufficient_scope` naming it.
   */
  mcp?: { demand?: (granted: string[]) => string | undefined };
  /** One path answered with a body that never ends (up to 64 MB) or that stops half-way and hangs. */
  hostile?: { path: string; body: 'endless' | 'stall'; status?: number };
  /** No RFC 9207 `iss` on the redirect (and none promised in the metadata). */
  withoutIss?: boolean;
  /**
   * A mix-up attacker's authorization server: /authorize sends the browser on to another server's,
   * with the request's state and PKCE challenge but the client ID and redirect URI used there.
   */
  forward?: { to: string; clientId: string; redirectUri: string };
}

const readText = (request: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => resolve(body));
  });

export async function startFakeAuth(options: FakeAuthOptions = {}) {
  const counts = { authorization_code: 0, refresh_token: 0, registrations: 0, requests: 0 };
  const revoked: string[] = [];
  /** Every request received: method, path and query, headers and body, for asserting what reached it. */
  const received: string[] = [];
  /** The scope of each authorization request, in order ('' when none). */
  const authorizations: string[] = [];
  /** What each code and access token was granted (the scope asked for). */
  const grantedBy = new Map<string, string[]>();
  let issued = 0;
  let base = '';
  const registeredRedirects = new Set<string>();
  /** Bytes of the hostile answer handed to the socket. */
  const hostile = { sent: 0 };
  const server = createServer(async (request, response) => {
    counts.requests += 1;
    const url = new URL(request.url ?? '/', base);
    if (url.pathname === options.hostile?.path) {
      await readText(request);
      response.writeHead(options.hostile.status ?? 200, { 'content-type': 'application/json' });
      return options.hostile.body === 'endless' ? endless(response, hostile) : stall(response, hostile);
    }
    const text = await readText(request);
    received.push(`${request.method} ${request.url} ${JSON.stringify(request.headers)} ${text}`);
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(JSON.stringify(value));
    };
    const metadataUrl = `${base}/.well-known/oauth-protected-resource/mcp`;
    if (url.pathname === '/mcp') {
      const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
      const granted = token === undefined ? undefined : grantedBy.get(token);
      if (!options.mcp || !granted)
        return json(
          401,
          { error: 'unauthorized' },
          {
            'www-authenticate': `Bearer resource_metadata="${metadataUrl}"${options.challengeScope ? `, scope="${options.challengeScope}"` : ''}`,
          },
        );
      const demanded = options.mcp.demand?.(granted);
      if (demanded)
        return json(
          403,
          { error: 'insufficient_scope' },
          {
            'www-authenticate': `Bearer error="insufficient_scope", scope="${demanded}", resource_metadata="${metadataUrl}"`,
          },
        );
      return serveMcp(request, response, text ? JSON.parse(text) : undefined);
    }
    if (url.pathname === '/.well-known/oauth-protected-resource/mcp')
      return json(200, {
        resource: options.resource ?? `${base}/mcp`,
        authorization_servers: [options.authorizationServer ?? base],
      });
    if (url.pathname === '/.well-known/oauth-authorization-server')
      return json(200, {
        issuer: options.issuer ?? base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        registration_endpoint: `${base}/register`,
        revocation_endpoint: `${base}/revoke`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        authorization_response_iss_parameter_supported: !options.withoutIss,
        ...options.metadata,
      });
    if (url.pathname === '/register') {
      counts.registrations += 1;
      const metadata = JSON.parse(text) as Record<string, unknown>;
      for (const uri of (metadata.redirect_uris as string[] | undefined) ?? []) registeredRedirects.add(uri);
      return json(201, { ...metadata, client_id: 'client-1', token_endpoint_auth_method: 'none' });
    }
    if (url.pathname === '/authorize' && options.forward) {
      const onward = new URL('/authorize', options.forward.to);
      for (const [key, value] of url.searchParams) onward.searchParams.set(key, value);
      onward.searchParams.set('client_id', options.forward.clientId);
      onward.searchParams.set('redirect_uri', options.forward.redirectUri);
      response.writeHead(302, { location: onward.toString() });
      return response.end();
    }
    if (url.pathname === '/authorize') {
      const redirectUri = url.searchParams.get('redirect_uri') ?? '';
      // Exact match against the registered redirect URIs (RFC 9700 §2.1), once a client registered.
      if (registeredRedirects.size > 0 && !registeredRedirects.has(redirectUri))
        return json(400, { error: 'invalid_request', error_description: 'unregistered redirect_uri' });
      const back = new URL(redirectUri);
      const scope = url.searchParams.get('scope') ?? '';
      authorizations.push(scope);
      const code = `code-${authorizations.length}`;
      grantedBy.set(code, scope.split(' ').filter(Boolean));
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      if (!options.withoutIss) back.searchParams.set('iss', options.issuer ?? base);
      for (const [key, value] of Object.entries(options.redirectExtra ?? {}))
        back.searchParams.set(key, value);
      response.writeHead(302, { location: back.toString() });
      return response.end();
    }
    if (url.pathname === '/token') {
      const body = new URLSearchParams(text);
      const grant = body.get('grant_type');
      if (grant === 'authorization_code' || grant === 'refresh_token') counts[grant] += 1;
      if (options.token === 'garbage') {
        response.writeHead(200, { 'content-type': 'text/html' });
        return response.end('<html>surprise</html>');
      }
      if (options.token === 'invalid_grant' && grant === 'refresh_token')
        return json(400, { error: 'invalid_grant', error_description: 'refresh token revoked' });
      if (options.token === 'invalid_client' && grant === 'refresh_token')
        return json(401, { error: 'invalid_client', error_description: 'unknown client' });
      if (options.token === 'unavailable' && grant === 'refresh_token') {
        response.writeHead(503, { 'content-type': 'text/plain' });
        return response.end('Service Unavailable');
      }
      if (options.token === 'drop' && grant === 'refresh_token') return request.socket.destroy();
      issued += 1;
      const rotated = grant !== 'refresh_token' || options.rotate !== false;
      const scopes = grantedBy.get(body.get('code') ?? body.get('refresh_token') ?? '') ?? [];
      grantedBy.set(`secret-access-${issued}-abcdef`, scopes);
      grantedBy.set(`secret-refresh-${issued}-abcdef`, scopes);
      return json(200, {
        access_token: `secret-access-${issued}-abcdef`,
        ...(rotated ? { refresh_token: `secret-refresh-${issued}-abcdef` } : {}),
        token_type: 'Bearer',
        expires_in: options.expiresIn ?? 3600,
      });
    }
    if (url.pathname === '/revoke') {
      revoked.push(new URLSearchParams(text).get('token') ?? '');
      response.writeHead(200);
      return response.end();
    }
    response.writeHead(404);
    response.end();
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  base = `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/mcp`,
    base,
    counts,
    revoked,
    received,
    authorizations,
    hostile,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A JSON body that goes on until the client stops reading (or 64 MB, so a client without a cap ends). */
function endless(response: ServerResponse, hostile: { sent: number }): void {
  const chunk = Buffer.alloc(64 * 1024, ' ');
  response.write('{"resource":"');
  let closed = false;
  response.on('close', () => {
    closed = true;
  });
  const more = () => {
    while (!closed && hostile.sent < 64 * 1024 * 1024) {
      hostile.sent += chunk.byteLength;
      if (!response.write(chunk)) return void response.once('drain', more);
    }
    if (!closed) response.end('"}');
  };
  more();
}

/** Headers and the start of a body, then nothing until the client gives up. */
function stall(response: ServerResponse, hostile: { sent: number }): void {
  const start = '{"resource":';
  hostile.sent += start.length;
  response.write(start);
}

/** A real MCP server (stateless Streamable HTTP) with one tool, for one request. */
async function serveMcp(
  request: IncomingMessage,
  response: ServerResponse,
  parsedBody: unknown,
): Promise<void> {
  const server = new McpServer({ name: 'fake-protected', version: '1.0.0' });
  server.registerTool(
    'whoami',
    { description: 'Says hello', annotations: { readOnlyHint: true } },
    async () => ({ content: [{ type: 'text', text: 'hello' }] }),
  );
  const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  await transport.handleRequest(request, response, parsedBody);
}

/** The person's browser: opens the authorization URL and returns where it is sent back, unfollowed. */
export async function authorize(authorizationUrl: string): Promise<string> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (!location) throw new Error(`no redirect (HTTP ${response.status})`);
  return location;
}

/** A test's clock: starts at a fixed instant, moved by hand. */
export function clock() {
  let now = Date.parse('2026-11-23T09:00:00Z');
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}
