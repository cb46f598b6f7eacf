import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Logger } from '../logger.js';
import type { Redactor } from '../redaction.js';
import { AuthorizationError, describeOAuthError } from './authorization-error.js';
import { grantSecrets, type OAuthGrant, parseGrant, sha256 } from './grant.js';
import type { OAuthStore } from './oauth-store.js';
import { revokeGrant } from './revoke.js';
import { sdkAuth } from './sdk-auth.js';

/** Who a grant belongs to. */
export interface GrantOwner {
  workspace: string;
  user: string;
}

export const keyOf = (person: GrantOwner, server: string) =>
  `${person.workspace}\u0000${person.user}\u0000${server}`;

/**
 * People's grants: read from the store once and cached, refreshed before they expire (one refresh per
 * refresh token in this process and across replicas), saved back rotated, revoked on disconnect.
 */
export class Grants {
  private readonly cache = new Map<string, OAuthGrant>();
  private readonly refreshing = new Map<string, Promise<OAuthGrant>>();

  constructor(
    private readonly options: {
      store: OAuthStore;
      redactor: Redactor;
      logger: Logger;
      now: () => Date;
      fetch: typeof fetch;
      /** How long before expiry a token is refreshed (default 60 s). */
      refreshMarginMs?: number;
    },
  ) {}

  /** The cached grant, if any (the SDK's provider reads the client from it). */
  cached(person: GrantOwner, server: string): OAuthGrant | undefined {
    return this.cache.get(keyOf(person, server));
  }

  /** A new grant (a completed flow): stored as the person's credential and cached. */
  async save(person: GrantOwner, grant: OAuthGrant): Promise<void> {
    this.options.redactor.add(grantSecrets(grant));
    await this.options.store.saveGrant(person.workspace, person.user, grant.server, JSON.stringify(grant));
    this.cache.set(keyOf(person, grant.server), grant);
  }

  /** When tokens just obtained expire. */
  expiry(tokens: OAuthTokens): { expiresAt?: number } {
    return typeof tokens.expires_in === 'number'
      ? { expiresAt: this.options.now().getTime() + tokens.expires_in * 1000 }
      : {};
  }

  /**
   * The person's current tokens for the server, refreshed first when they expire within the margin:
   * one refresh at a time in this process and across replicas (the store's claim), the rotated
   * refresh token stored. Undefined when they have not connected; a refresh the server refuses
   * removes the grant and throws (they connect again).
   */
  async tokens(
    person: GrantOwner,
    server: string,
    /** How this server's authorization server is reached (a workspace's server: public addresses only). */
    fetchFn: typeof fetch = this.options.fetch,
  ): Promise<OAuthTokens | undefined> {
    const key = keyOf(person, server);
    let grant = this.cache.get(key);
    if (!grant) {
      grant = parseGrant(await this.options.store.grant(person.workspace, person.user, server));
      if (!grant) return undefined;
      this.options.redactor.add(grantSecrets(grant));
      this.cache.set(key, grant);
    }
    if (!this.expiresSoon(grant)) return grant.tokens;
    let pending = this.refreshing.get(key);
    if (!pending) {
      pending = this.refresh(person, grant, fetchFn).finally(() => this.refreshing.delete(key));
      this.refreshing.set(key, pending);
    }
    return (await pending).tokens;
  }

  /** Saves tokens the SDK obtained itself on a connection (its own refresh after a 401). */
  async saveTokens(person: GrantOwner, server: string, tokens: OAuthTokens): Promise<void> {
    const key = keyOf(person, server);
    const grant =
      this.cache.get(key) ??
      parseGrant(await this.options.store.grant(person.workspace, person.user, server));
    if (!grant) return;
    const next: OAuthGrant = {
      ...grant,
      tokens: { ...tokens, refresh_token: tokens.refresh_token ?? grant.tokens.refresh_token },
      ...this.expiry(tokens),
    };
    this.options.redactor.add(grantSecrets(next));
    this.cache.set(key, next);
    await this.options.store.saveGrant(person.workspace, person.user, server, JSON.stringify(next));
  }

  /** Revokes the person's tokens at the authorization server (RFC 7009, where offered), then forgets them. */
  async revoke(
    person: GrantOwner,
    server: string,
    fetchFn: typeof fetch = this.options.fetch,
  ): Promise<boolean> {
    const key = keyOf(person, server);
    const grant =
      this.cache.get(key) ??
      parseGrant(await this.options.store.grant(person.workspace, person.user, server));
    this.cache.delete(key);
    if (grant)
      await revokeGrant(grant, fetchFn).catch((error: unknown) =>
        this.options.logger.warn(
          { server, error: describeOAuthError(error) },
          'revoking the OAuth tokens failed; they are forgotten here all the same',
        ),
      );
    return this.options.store.deleteGrant(person.workspace, person.user, server);
  }

  /** Forgets the cached grant (the credential changed elsewhere). */
  forget(person: GrantOwner, server?: string): void {
    for (const key of [...this.cache.keys()])
      if (
        key.startsWith(`${person.workspace}\u0000${person.user}\u0000`) &&
        (!server || key.endsWith(`\u0000${server}`))
      )
        this.cache.delete(key);
  }

  private expiresSoon(grant: OAuthGrant): boolean {
    return (
      grant.expiresAt !== undefined &&
      grant.expiresAt - (this.options.refreshMarginMs ?? 60_000) <= this.options.now().getTime()
    );
  }

  private async refresh(person: GrantOwner, grant: OAuthGrant, fetchFn: typeof fetch): Promise<OAuthGrant> {
    const server = grant.server;
    const refreshToken = grant.tokens.refresh_token;
    if (!refreshToken) {
      await this.dropGrant(person, grant, 'the access token expired and the server gave no refresh token');
    }
    // Across replicas: the first to claim this refresh token refreshes; the others wait for its result.
    const claimed = await this.options.store.claim(
      `oauth-refresh:${sha256(`${keyOf(person, server)}\u0000${refreshToken}`)}`,
      person.workspace,
    );
    if (!claimed) return this.awaitRefreshed(person, grant);
    let tokens: OAuthTokens;
    try {
      const { refreshAuthorization } = await sdkAuth();
      tokens = await refreshAuthorization(grant.authorizationServer, {
        ...(grant.metadata ? { metadata: grant.metadata } : {}),
        clientInformation: grant.client,
        refreshToken: refreshToken as string,
        ...(grant.resource ? { resource: new URL(grant.resource) } : {}),
        fetchFn,
      });
    } catch (error) {
      return this.dropGrant(person, grant, `the refresh was refused: ${describeOAuthError(error)}`);
    }
    const next: OAuthGrant = { ...grant, tokens, ...this.expiry(tokens) };
    this.options.redactor.add(grantSecrets(next));
    await this.options.store.saveGrant(person.workspace, person.user, server, JSON.stringify(next));
    this.cache.set(keyOf(person, server), next);
    this.options.logger.info({ server }, 'OAuth tokens refreshed');
    return next;
  }

  /** Another replica refreshes: its grant is read back from the store (bounded wait). */
  private async awaitRefreshed(person: GrantOwner, stale: OAuthGrant): Promise<OAuthGrant> {
    for (let attempt = 0; attempt < 100; attempt++) {
      const stored = parseGrant(await this.options.store.grant(person.workspace, person.user, stale.server));
      if (!stored) break;
      if (stored.tokens.access_token !== stale.tokens.access_token) {
        this.options.redactor.add(grantSecrets(stored));
        this.cache.set(keyOf(person, stale.server), stored);
        return stored;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw reconnect(stale.server, 'another refresh of these tokens did not finish');
  }

  private async dropGrant(person: GrantOwner, grant: OAuthGrant, why: string): Promise<never> {
    this.cache.delete(keyOf(person, grant.server));
    await this.options.store.deleteGrant(person.workspace, person.user, grant.server);
    this.options.logger.warn({ server: grant.server }, `OAuth connection dropped: ${why}`);
    throw reconnect(grant.server, why);
  }
}

/** A person must connect again: the host cannot get them a token. */
function reconnect(server: string, why: string): AuthorizationError {
  return new AuthorizationError(server, 'refresh', `${why}; connect the server again`, {
    reconnect: true,
  });
}
