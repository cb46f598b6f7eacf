import type { AuthorizationServerMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { AuthorizationError } from './authorization-error.js';
import type { FlowRecord } from './flow-provider.js';

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
