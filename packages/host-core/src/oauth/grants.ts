import type { Logger } from '@ai-assistant/chat-types';
import type { OAuthTokens } from '@modelcontextprotocol/client';
import type { Redactor } from '../redaction.js';
import { AuthorizationError, describeOAuthError, oauthErrorCode } from './authorization-error.js';
import { grantSecrets, type OAuthGrant, parseGrant, sha256 } from './grant.js';
import type { OAuthStore } from './oauth-store.js';
import { revokeGrant } from './revoke.js';
import { sdkAuth } from './sdk-auth.js';

/** Who a grant belongs to. */
export interface GrantOwner {
  workspace: string;
  user: string;
}

/** Tokens refreshed for a refusal are not refreshed again for another within this long. */
const refusalRefreshGapMs = 60_000;

export const keyOf = (person: GrantOwner, server: string) =>
  `${person.workspace}\u0000${person.user}\u0000${server}`;

/**
 * People's grants: read from the store once and cached, refreshed at their own authorization server
 * when they expire or a server refuses them (one refresh at a time per grant, in this process and
 * across replicas), saved back rotated, revoked on disconnect.
 */
export class Grants {
  private readonly cache = new Map<string, OAuthGrant>();
  /** Refreshes under way in this process, by grant and the access token they replace. */
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

  /** The cached grant, if any (what a challenge is compared with: the scope it was granted). */
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
   * The person's current tokens for the server, refreshed first when they expire within the margin.
   * Undefined when they have not connected. A refresh the authorization server refuses
   * (`invalid_grant`, `invalid_client`) removes the grant and throws (they connect again); one that
   * fails otherwise (an outage) keeps it and throws an error that says to try again.
   */
  async tokens(
    person: GrantOwner,
    server: string,
    /** How this server's authorization server is reached (a workspace's server: public addresses only). */
    fetchFn: typeof fetch = this.options.fetch,
  ): Promise<OAuthTokens | undefined> {
    const grant = this.cache.get(keyOf(person, server)) ?? (await this.stored(person, server));
    if (!grant) return undefined;
    if (!this.expiresSoon(grant)) return grant.tokens;
    return (await this.refreshOnce(person, grant, fetchFn)).tokens;
  }

  /**
   * The server refused this access token (HTTP 401) before it expired: the grant is read again from
   * the store (another replica may have refreshed it, or the person connected again) and, when the
   * store still holds the refused token, refreshed at the grant's own authorization server. Returns
   * the tokens to try once more, or undefined when there are none to try (the refused token came
   * from a refresh made for a refusal less than a minute ago: the server refuses this grant however
   * fresh, and refreshing on each request would only spend refresh tokens).
   */
  async refused(
    person: GrantOwner,
    server: string,
    accessToken: string,
    fetchFn: typeof fetch = this.options.fetch,
  ): Promise<OAuthTokens | undefined> {
    const grant = await this.stored(person, server);
    if (!grant) return undefined;
    if (grant.tokens.access_token !== accessToken) return grant.tokens;
    const refusedBefore = grant.refreshedOnRefusalAt;
    if (refusedBefore !== undefined && this.options.now().getTime() - refusedBefore < refusalRefreshGapMs)
      return undefined;
    return (await this.refreshOnce(person, grant, fetchFn, { onRefusal: true })).tokens;
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

  /** The grant as the store holds it now (cached, its secrets redacted), or undefined. */
  private async stored(person: GrantOwner, server: string): Promise<OAuthGrant | undefined> {
    const grant = parseGrant(await this.options.store.grant(person.workspace, person.user, server));
    const key = keyOf(person, server);
    if (!grant) {
      this.cache.delete(key);
      return undefined;
    }
    this.options.redactor.add(grantSecrets(grant));
    this.cache.set(key, grant);
    return grant;
  }

  private expiresSoon(grant: OAuthGrant): boolean {
    return (
      grant.expiresAt !== undefined &&
      grant.expiresAt - (this.options.refreshMarginMs ?? 60_000) <= this.options.now().getTime()
    );
  }

  /** One refresh of `stale` in this process: concurrent callers share it. */
  private refreshOnce(
    person: GrantOwner,
    stale: OAuthGrant,
    fetchFn: typeof fetch,
    options: { onRefusal?: boolean } = {},
  ): Promise<OAuthGrant> {
    const key = `${keyOf(person, stale.server)}\u0000${stale.tokens.access_token}`;
    let pending = this.refreshing.get(key);
    if (!pending) {
      pending = this.refreshClaimed(person, stale, fetchFn, options).finally(() =>
        this.refreshing.delete(key),
      );
      this.refreshing.set(key, pending);
    }
    return pending;
  }

  /**
   * Across replicas: the replica whose claim on (person, server, the access token replaced) succeeds
   * refreshes, after reading the grant once more (a replica may have finished just before); the
   * others read the result back from the store. The claim is released when the attempt ends, so the
   * next refresh (the refresh token unchanged, where the server does not rotate them) claims anew.
   */
  private async refreshClaimed(
    person: GrantOwner,
    stale: OAuthGrant,
    fetchFn: typeof fetch,
    options: { onRefusal?: boolean },
  ): Promise<OAuthGrant> {
    const server = stale.server;
    const claim = `oauth-refresh:${sha256(`${keyOf(person, server)}\u0000${stale.tokens.access_token}`)}`;
    for (let attempt = 0; attempt < 100; attempt++) {
      // Another replica refreshes these tokens: its result is read back from the store.
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      const claimed = await this.options.store.claim(claim, person.workspace);
      try {
        const current = await this.stored(person, server);
        if (!current) throw reconnect(server, 'the connection was removed meanwhile');
        if (current.tokens.access_token !== stale.tokens.access_token) return current;
        if (claimed) return await this.refresh(person, current, fetchFn, options);
      } finally {
        if (claimed)
          await this.options.store
            .release(claim)
            .catch((error: unknown) =>
              this.options.logger.warn({ server, error: String(error) }, 'could not release a refresh claim'),
            );
      }
    }
    throw retryLater(server, 'another refresh of these tokens did not finish');
  }

  /** The refresh itself, at the grant's own authorization server; the tokens keep its issuer. */
  private async refresh(
    person: GrantOwner,
    grant: OAuthGrant,
    fetchFn: typeof fetch,
    options: { onRefusal?: boolean },
  ): Promise<OAuthGrant> {
    const server = grant.server;
    const refreshToken = grant.tokens.refresh_token;
    if (!refreshToken)
      return this.dropGrant(
        person,
        grant,
        options.onRefusal
          ? 'the server refused the access token and the authorization server gave no refresh token'
          : 'the access token expired and the authorization server gave no refresh token',
      );
    let tokens: OAuthTokens;
    try {
      const { refreshAuthorization } = await sdkAuth();
      tokens = await refreshAuthorization(grant.authorizationServer, {
        ...(grant.metadata ? { metadata: grant.metadata } : {}),
        clientInformation: grant.client,
        refreshToken,
        ...(grant.resource ? { resource: new URL(grant.resource) } : {}),
        fetchFn,
      });
    } catch (error) {
      // RFC 6749 §5.2: only these say the grant (or the client) is dead; anything else may pass.
      const code = oauthErrorCode(error);
      if (code === 'invalid_grant' || code === 'invalid_client')
        return this.dropGrant(person, grant, `the refresh was refused: ${describeOAuthError(error)}`);
      this.options.logger.warn(
        { server, error: describeOAuthError(error) },
        'refreshing OAuth tokens failed; the connection is kept',
      );
      throw retryLater(
        server,
        `the authorization server could not refresh the tokens (${describeOAuthError(error)})`,
        error,
      );
    }
    const next: OAuthGrant = {
      ...grant,
      // The SDK's stamp: these tokens are for this authorization server and no other.
      tokens: { ...tokens, issuer: grant.authorizationServer },
      ...this.expiry(tokens),
    };
    if (options.onRefusal) next.refreshedOnRefusalAt = this.options.now().getTime();
    else delete next.refreshedOnRefusalAt;
    this.options.redactor.add(grantSecrets(next));
    await this.options.store.saveGrant(person.workspace, person.user, server, JSON.stringify(next));
    this.cache.set(keyOf(person, server), next);
    this.options.logger.info({ server }, 'OAuth tokens refreshed');
    return next;
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

/** The grant stands, but no token could be had now: the person (or the model) tries again later. */
function retryLater(server: string, why: string, cause?: unknown): AuthorizationError {
  return new AuthorizationError(server, 'refresh', `${why}; the connection is kept: try again in a moment`, {
    ...(cause === undefined ? {} : { cause }),
    retryable: true,
  });
}
