import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { AuthorizationError } from '../src/oauth/authorization-error.js';

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
  let issued = 0;
  let base = '';
  const server = createServer(async (request, response) => {
    counts.requests += 1;
    const url = new URL(request.url ?? '/', base);
    const text = await readText(request);
    received.push(`${request.method} ${request.url} ${JSON.stringify(request.headers)} ${text}`);
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
        authorization_response_iss_parameter_supported: true,
        ...options.metadata,
      });
    if (url.pathname === '/register') {
      counts.registrations += 1;
      const metadata = JSON.parse(text) as Record<string, unknown>;
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
      const grant = new URLSearchParams(text).get('grant_type');
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

/** A test's clock: starts at a fixed instant, moved by hand. */
export function clock() {
  let now = Date.parse('2026-11-23T09:00:00Z');
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}

/** What a promise rejected with, asserted to be an AuthorizationError (to check its step and text). */
export async function failure(work: Promise<unknown>): Promise<AuthorizationError> {
  const error = await work.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AuthorizationError);
  return error as AuthorizationError;
}
