import type { AuthorizationServerMetadata } from '@modelcontextprotocol/client';
import { AuthorizationError } from './authorization-error.js';
import type { FlowRecord } from './flow-provider.js';
import type { OAuthStore } from './oauth-store.js';

/** A state lives this long (10 minutes), and is used once. */
export const stateLifetimeMs = 10 * 60_000;

const loopback = new Set(['localhost', '127.0.0.1', '[::1]']);

/** https, or http on this machine only (RFC 8252 loopback; tests). */
export function secureEnough(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || (parsed.protocol === 'http:' && loopback.has(parsed.hostname));
  } catch {
    return false;
  }
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/**
 * The authorization server found by discovery may be used: it and every endpoint it names are https
 * (or loopback), and, when the protected resource named it, its metadata names itself as the issuer it
 * was fetched for (RFC 8414 §3.3). A 2025-03-26 server has no resource metadata: its origin is taken as
 * the authorization server, a guess the issuer need not echo.
 */
export function checkAuthorizationServer(
  server: string,
  authorizationServerUrl: string | URL,
  metadata: AuthorizationServerMetadata | undefined,
  named: boolean,
): void {
  const asUrl = String(authorizationServerUrl);
  if (!secureEnough(asUrl))
    throw new AuthorizationError(
      server,
      'discovery',
      `the authorization server ${asUrl.slice(0, 200)} is not on https; tokens are never sent over plain HTTP`,
    );
  if (!metadata) return;
  if (named && trimSlash(metadata.issuer) !== trimSlash(asUrl))
    throw new AuthorizationError(
      server,
      'discovery',
      `the authorization server's metadata names another issuer (${metadata.issuer.slice(0, 200)}) than the server it was fetched from (${asUrl.slice(0, 200)})`,
    );
  for (const field of [
    'authorization_endpoint',
    'token_endpoint',
    'registration_endpoint',
    'revocation_endpoint',
  ] as const) {
    const endpoint = (metadata as Record<string, unknown>)[field];
    if (typeof endpoint === 'string' && !secureEnough(endpoint))
      throw new AuthorizationError(
        server,
        'discovery',
        `the authorization server's ${field} ${endpoint.slice(0, 200)} is not on https`,
      );
  }
}

/** RFC 9207: where the AS says it sends `iss` on the redirect, it must be there and be its issuer. */
export function checkIssuer(server: string, flow: Pick<FlowRecord, 'discovery'>, iss: string | null): void {
  const metadata = flow.discovery.authorizationServerMetadata;
  if (!metadata) return;
  const supported =
    (metadata as { authorization_response_iss_parameter_supported?: boolean })
      .authorization_response_iss_parameter_supported === true;
  if (iss === null && !supported) return;
  if (iss !== metadata.issuer)
    throw new AuthorizationError(
      server,
      'redirect',
      iss === null
        ? 'the authorization server promised an issuer (iss) on the redirect and sent none'
        : `the redirect names another issuer (${iss.slice(0, 200)}) than the authorization server (${metadata.issuer})`,
    );
}

/**
 * The redirect came back to the flow's own redirect URI: its address and the query it carries (the
 * authorization server's `as`, which another server's flow does not have), whatever the server added.
 */
function sameRedirect(callback: URL, expected: URL): boolean {
  if (`${callback.origin}${callback.pathname}` !== `${expected.origin}${expected.pathname}`) return false;
  const keys = new Set([...expected.searchParams.keys(), 'as']);
  return [...keys].every((key) => callback.searchParams.get(key) === expected.searchParams.get(key));
}

/**
 * The redirect back from the authorization server (the callback URL with `code`, `state`, maybe `iss`)
 * checked: its state known, unused (deleted now: of two redirects with one state only one goes on),
 * not expired, for this redirect URI; no error; the issuer the one the flow began with. Returns the
 * flow and the code to exchange.
 */
export async function redeemRedirect(
  callback: string | URL,
  store: Pick<OAuthStore, 'record' | 'deleteRecord'>,
  now: Date,
): Promise<{ flow: FlowRecord; code: string; iss?: string }> {
  const url = new URL(callback);
  const state = url.searchParams.get('state');
  if (!state) throw new AuthorizationError(undefined, 'redirect', 'the redirect carries no state');
  const raw = await store.record('oauth-pending', state);
  // Single use: of two redirects with one state, only the one that deletes it goes on.
  if (!raw || !(await store.deleteRecord('oauth-pending', state)))
    throw new AuthorizationError(
      undefined,
      'redirect',
      'unknown or already used state: start connecting again',
    );
  const flow = JSON.parse(raw) as FlowRecord;
  const server = flow.server;
  if (now.getTime() - flow.createdAt > stateLifetimeMs)
    throw new AuthorizationError(server, 'redirect', 'the sign-in took longer than 10 minutes: start again');
  if (!sameRedirect(url, new URL(flow.redirectUri)))
    throw new AuthorizationError(server, 'redirect', 'the redirect came back to another address');
  const error = url.searchParams.get('error');
  if (error)
    throw new AuthorizationError(
      server,
      'authorization',
      `the authorization server answered ${error}${url.searchParams.get('error_description') ? `: ${url.searchParams.get('error_description')}` : ''}`.slice(
        0,
        300,
      ),
    );
  const iss = url.searchParams.get('iss');
  checkIssuer(server, flow, iss);
  const code = url.searchParams.get('code');
  if (!code) throw new AuthorizationError(server, 'redirect', 'the redirect carries no authorization code');
  return { flow, code, ...(iss === null ? {} : { iss }) };
}
