import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A protected MCP endpoint and its authorization server in one loopback process, every answer
 * adjustable: for the OAuth client's failure paths (a hostile or broken server). The real
 * authorization server of the end-to-end tests is oidc-provider (test-kit).
 */
export interface FakeAuthOptions {
  /** The authorization server the resource names (default: this server). */
  authorizationServer?: string;
  /** The issuer the metadata claims (default: this server). */
  issuer?: string;
  /** Override metadata fields (e.g. a plain-http token endpoint). */
  metadata?: Record<string, unknown>;
  /** What the token endpoint answers. */
  token?: 'ok' | 'garbage' | 'invalid_grant';
  /** What /authorize sends back besides the code (e.g. `{ error: 'access_denied' }` or another iss). */
  redirectExtra?: Record<string, string>;
  expiresIn?: number;
}

const readText = (request: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => resolve(body));
  });
const readBody = async (request: IncomingMessage) => new URLSearchParams(await readText(request));

export async function startFakeAuth(options: FakeAuthOptions = {}) {
  const counts = { authorization_code: 0, refresh_token: 0, registrations: 0, requests: 0 };
  const revoked: string[] = [];
  let issued = 0;
  let base = '';
  const server = createServer(async (request, response) => {
    counts.requests += 1;
    const url = new URL(request.url ?? '/', base);
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(JSON.stringify(value));
    };
    if (url.pathname === '/mcp')
      return json(
        401,
        { error: 'unauthorized' },
        {
          'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
        },
      );
    if (url.pathname === '/.well-known/oauth-protected-resource/mcp')
      return json(200, {
        resource: `${base}/mcp`,
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
        authorization_response_iss_parameter_supported: true,
        ...options.metadata,
      });
    if (url.pathname === '/register') {
      counts.registrations += 1;
      const metadata = JSON.parse(await readText(request)) as Record<string, unknown>;
      return json(201, { ...metadata, client_id: 'client-1', token_endpoint_auth_method: 'none' });
    }
    if (url.pathname === '/authorize') {
      const back = new URL(url.searchParams.get('redirect_uri') ?? '');
      back.searchParams.set('code', 'code-1');
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      back.searchParams.set('iss', options.issuer ?? base);
      for (const [key, value] of Object.entries(options.redirectExtra ?? {}))
        back.searchParams.set(key, value);
      response.writeHead(302, { location: back.toString() });
      return response.end();
    }
    if (url.pathname === '/token') {
      const body = await readBody(request);
      const grant = body.get('grant_type');
      if (grant === 'authorization_code' || grant === 'refresh_token') counts[grant] += 1;
      if (options.token === 'garbage') {
        response.writeHead(200, { 'content-type': 'text/html' });
        return response.end('<html>surprise</html>');
      }
      if (options.token === 'invalid_grant' && grant === 'refresh_token')
        return json(400, { error: 'invalid_grant', error_description: 'refresh token revoked' });
      issued += 1;
      return json(200, {
        access_token: `secret-access-${issued}-abcdef`,
        refresh_token: `secret-refresh-${issued}-abcdef`,
        token_type: 'Bearer',
        expires_in: options.expiresIn ?? 3600,
      });
    }
    if (url.pathname === '/revoke') {
      revoked.push((await readBody(request)).get('token') ?? '');
      response.writeHead(200);
      return response.end();
    }
    response.writeHead(404);
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/mcp`,
    base,
    counts,
    revoked,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The person's browser: opens the authorization URL and returns where it is sent back, unfollowed. */
export async function authorize(authorizationUrl: string): Promise<string> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (!location) throw new Error(`no redirect (HTTP ${response.status})`);
  return location;
}
