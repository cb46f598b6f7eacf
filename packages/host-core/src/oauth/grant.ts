import type {
  AuthorizationServerMetadata,
  OAuthClientInformationMixed,
  OAuthTokens,
} from '@modelcontextprotocol/client';
import { sha256Of } from '../builtins.js';

/**
 * What a person's OAuth connection to one server holds, stored as their credential for it (encrypted):
 * the tokens and everything a refresh or a revocation needs without discovery again.
 */
export interface OAuthGrant {
  v: 1;
  /** Stable across refreshes: the person's connection is reopened only when this changes. */
  id: string;
  server: string;
  /** The authorization server's URL, as discovery found it (the SDK's binding key). */
  authorizationServer: string;
  metadata?: AuthorizationServerMetadata;
  client: OAuthClientInformationMixed;
  /** The RFC 8707 resource the tokens are for. */
  resource?: string;
  tokens: OAuthTokens;
  /** The scope asked for: what was granted unless the token response says otherwise (RFC 6749 §5.1). */
  scope?: string;
  /** When the access token expires (ms since the epoch), when the server said. */
  expiresAt?: number;
  /**
   * When these tokens were obtained by a refresh made because the server refused the ones before (ms
   * since the epoch): a refusal of these within a minute is not refreshed again (the server refuses
   * the grant however fresh; the person connects again).
   */
  refreshedOnRefusalAt?: number;
  /** When the person connected (ISO). */
  connectedAt: string;
}

/** A stored grant, or undefined when the value is not one (a pasted token, garbage). */
export function parseGrant(value: string | undefined): OAuthGrant | undefined {
  if (!value?.startsWith('{')) return undefined;
  try {
    const grant = JSON.parse(value) as Partial<OAuthGrant>;
    return grant.v === 1 && typeof grant.id === 'string' && typeof grant.tokens?.access_token === 'string'
      ? (grant as OAuthGrant)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The part of a stored credential that names the connection: a grant's id, else the value itself. */
export function credentialIdentity(value: string): string {
  return parseGrant(value)?.id ?? value;
}

/** The scope a grant's token has: the token response's, else the one asked for (RFC 6749 §5.1). */
export function grantedScope(grant: Pick<OAuthGrant, 'tokens' | 'scope'>): string | undefined {
  return grant.tokens.scope ?? grant.scope;
}

/** The secrets a grant carries, for the redactor. */
export function grantSecrets(grant: Pick<OAuthGrant, 'tokens' | 'client'>): string[] {
  return [
    grant.tokens.access_token,
    grant.tokens.refresh_token,
    grant.tokens.id_token,
    grant.client.client_secret,
  ].filter((value): value is string => typeof value === 'string');
}

export const sha256 = (text: string) => sha256Of(text, 'base64url');
