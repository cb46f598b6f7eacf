import { OAuthResponseError } from './bounded-fetch.js';
import type { OAuthGrant } from './grant.js';

/**
 * RFC 7009: revokes the refresh token (which ends the grant at most servers) and the access token, at
 * the authorization server's revocation endpoint, authenticating as the client registered. A server
 * that cannot revoke a kind of token (`unsupported_token_type`, e.g. a JWT access token that simply
 * expires) is no failure.
 */
export async function revokeGrant(grant: OAuthGrant, fetchFn: typeof fetch): Promise<void> {
  const endpoint = (grant.metadata as { revocation_endpoint?: string } | undefined)?.revocation_endpoint;
  if (!endpoint) return;
  const method =
    (grant.client as { token_endpoint_auth_method?: string }).token_endpoint_auth_method ??
    (grant.client.client_secret ? 'client_secret_basic' : 'none');
  const tokens: Array<[string, string]> = [];
  if (grant.tokens.refresh_token) tokens.push([grant.tokens.refresh_token, 'refresh_token']);
  tokens.push([grant.tokens.access_token, 'access_token']);
  for (const [token, hint] of tokens) {
    const body = new URLSearchParams({ token, token_type_hint: hint });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (method === 'client_secret_basic' && grant.client.client_secret)
      headers.authorization = `Basic ${Buffer.from(
        `${encodeURIComponent(grant.client.client_id)}:${encodeURIComponent(grant.client.client_secret)}`,
      ).toString('base64')}`;
    else {
      body.set('client_id', grant.client.client_id);
      if (method === 'client_secret_post' && grant.client.client_secret)
        body.set('client_secret', grant.client.client_secret);
    }
    const response = await fetchFn(endpoint, {
      method: 'POST',
      headers,
      body,
    });
    if (response.ok) {
      await response.body?.cancel().catch(() => undefined);
      continue;
    }
    // RFC 7009 §2.2.1: a server that cannot revoke this kind of token (a JWT access token) says so.
    const error = (
      (await response.json().catch((failure: unknown) => {
        // An answer that is not JSON says nothing more; one too large or too slow is named.
        if (failure instanceof OAuthResponseError) throw failure;
        return {};
      })) as { error?: unknown }
    ).error;
    if (error !== 'unsupported_token_type')
      throw new Error(
        `the revocation endpoint answered HTTP ${response.status}${typeof error === 'string' ? ` ${error}` : ''}`,
      );
  }
}
