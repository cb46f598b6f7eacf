import { randomBytes } from 'node:crypto';
import {
  auth,
  discoverOAuthServerInfo,
  extractWWWAuthenticateParams,
  type OAuthClientProvider,
  refreshAuthorization,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { RemoteServerConfig } from '../config/server-types.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import type { Redactor } from '../redaction.js';
import { AuthorizationError, describeOAuthError } from './authorization-error.js';
import { checkAuthorizationServer } from './checks.js';
import { type FlowRecord, flowProvider, refreshingProvider } from './flow-provider.js';
import { grantSecrets, type OAuthGrant, parseGrant, sha256 } from './grant.js';
import type { OAuthStore } from './oauth-store.js';
import { revokeGrant } from './revoke.js';

/** Who a grant belongs to. */
export interface GrantOwner {
  workspace: string;
  user: string;
}

/** Options of {@link OAuthService}. */
export interface OAuthOptions {
  store: OAuthStore;
  /** The exact redirect URI the authorization server sends people back to (the bot's callback). */
  redirectUrl: string;
  /** An https URL where the host serves {@link OAuthService.clientMetadataDocument} (client ID metadata). */
  clientMetadataUrl?: string;
  clientName?: string;
  redactor: Redactor;
  logger?: Logger;
  now?: () => Date;
  fetch?: typeof fetch;
  /** How long an access token is taken as fresh before it expires (default 60 s): it is refreshed sooner. */
  refreshMarginMs?: number;
}

/** A state lives this long (10 minutes), and is used once. */
export const stateLifetimeMs = 10 * 60_000;
/** How many times in a row a server may ask for more access (403 insufficient_scope) before the host stops. */
export const stepUpLimit = 2;

/**
 * The client side of MCP authorization, per person: discovery (the server's challenge and protected-
 * resource metadata, then the authorization server's), the client's identity (a client ID metadata
 * document, dynamic registration stored per authorization server, or a pre-registered client), the
 * authorization code flow with PKCE and resource indicators, and each person's tokens: stored like
 * every credential, refreshed before they expire by one replica at a time, revoked on disconnect.
 * A program completes a flow without a browser: {@link begin} gives the URL, {@link complete} takes
 * the redirect back.
 */
export class OAuthService {
  private readonly logger: Logger;
  private readonly now: () => Date;
  private readonly fetchFn: typeof fetch;
  private readonly cache = new Map<string, OAuthGrant>();
  private readonly refreshing = new Map<string, Promise<OAuthGrant>>();
  /** Scopes a server asked for with 403 insufficient_scope, and how often, per person. */
  private readonly stepUps = new Map<string, { scope: string; count: number; at: number }>();

  constructor(private readonly options: OAuthOptions) {
    this.logger = options.logger ?? silentLogger;
    this.now = options.now ?? (() => new Date());
    this.fetchFn = options.fetch ?? fetch;
  }

  /** The client ID metadata document the host serves at `clientMetadataUrl`. */
  clientMetadataDocument(): OAuthClientMetadata & { client_id?: string } {
    return {
      ...(this.options.clientMetadataUrl ? { client_id: this.options.clientMetadataUrl } : {}),
      ...this.clientMetadata(),
    };
  }

  private clientMetadata(scope?: string): OAuthClientMetadata {
    return {
      client_name: this.options.clientName ?? 'ai-assistant',
      redirect_uris: [this.options.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(scope ? { scope } : {}),
    };
  }

  /**
   * Starts connecting `person` to `config`'s server: discovery, the client's identity, PKCE and a
   * state bound to (workspace, person, server) for 10 minutes. Returns the URL to open.
   */
  async begin(person: GrantOwner, config: RemoteServerConfig): Promise<{ url: string; expiresAt: Date }> {
    const server = config.name;
    const challenge = await this.step(server, 'discovery', () => this.challenge(config));
    const info = await this.step(server, 'discovery', () =>
      discoverOAuthServerInfo(config.url, {
        ...(challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {}),
        fetchFn: this.fetchFn,
      }),
    );
    checkAuthorizationServer(
      server,
      info.authorizationServerUrl,
      info.authorizationServerMetadata,
      (info.resourceMetadata?.authorization_servers?.length ?? 0) > 0,
    );
    const stepUp = this.stepUpFor(person, server);
    const scope = chooseScope({
      challenge: stepUp?.scope ?? challenge.scope,
      supported: info.resourceMetadata?.scopes_supported,
      configured: config.oauth?.scope,
      offline: info.authorizationServerMetadata?.scopes_supported?.includes('offline_access') === true,
    });
    const flow: FlowRecord = {
      state: randomBytes(32).toString('base64url'),
      workspace: person.workspace,
      user: person.user,
      server,
      redirectUri: this.options.redirectUrl,
      createdAt: this.now().getTime(),
      discovery: {
        authorizationServerUrl: String(info.authorizationServerUrl),
        ...(challenge.resourceMetadataUrl
          ? { resourceMetadataUrl: challenge.resourceMetadataUrl.toString() }
          : {}),
        ...(info.resourceMetadata ? { resourceMetadata: info.resourceMetadata } : {}),
        ...(info.authorizationServerMetadata
          ? { authorizationServerMetadata: info.authorizationServerMetadata }
          : {}),
      },
      ...(scope ? { scope } : {}),
    };
    const registrationId = sha256(`${flow.discovery.authorizationServerUrl}\u0000${flow.redirectUri}`);
    const preRegistered = config.oauth?.clientId
      ? {
          client_id: config.oauth.clientId,
          ...(config.oauth.clientSecret ? { client_secret: config.oauth.clientSecret } : {}),
        }
      : undefined;
    const stored = preRegistered
      ? undefined
      : await this.options.store.record('oauth-client', registrationId);
    let authorizationUrl: URL | undefined;
    const provider = flowProvider(flow, {
      clientMetadata: this.clientMetadata(scope),
      ...(this.options.clientMetadataUrl ? { clientMetadataUrl: this.options.clientMetadataUrl } : {}),
      client: preRegistered ?? (stored ? (JSON.parse(stored) as OAuthClientInformationMixed) : undefined),
      saveClient: async (client) => {
        flow.client = client;
        // One registration per authorization server (and redirect URI), shared by everyone.
        if (!preRegistered)
          await this.options.store.saveRecord(
            'oauth-client',
            registrationId,
            undefined,
            JSON.stringify(client),
          );
      },
      redirect: (url) => {
        authorizationUrl = url;
      },
    });
    const result = await this.step(server, 'authorization request', () =>
      auth(provider, {
        serverUrl: config.url,
        ...(scope ? { scope } : {}),
        ...(challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {}),
        fetchFn: this.fetchFn,
      }),
    );
    if (result !== 'REDIRECT' || !authorizationUrl)
      throw new AuthorizationError(
        server,
        'authorization request',
        'the authorization server gave no URL to open',
      );
    if (flow.client?.client_secret) this.options.redactor.add([flow.client.client_secret]);
    await this.options.store.saveRecord('oauth-pending', flow.state, person.workspace, JSON.stringify(flow));
    return { url: authorizationUrl.toString(), expiresAt: new Date(flow.createdAt + stateLifetimeMs) };
  }

  /**
   * Completes a flow from the redirect back (the callback URL with `code`, `state`, maybe `iss`): the
   * state is checked (known, unused, not expired, this redirect URI), then the code is exchanged and
   * the person's grant stored. Returns whose it was.
   */
  async complete(
    callback: string | URL,
    config: (server: string) => RemoteServerConfig | undefined,
  ): Promise<GrantOwner & { server: string }> {
    const url = new URL(callback);
    const state = url.searchParams.get('state');
    if (!state) throw new AuthorizationError(undefined, 'redirect', 'the redirect carries no state');
    const raw = await this.options.store.record('oauth-pending', state);
    // Single use: of two redirects with one state, only the one that deletes it goes on.
    if (!raw || !(await this.options.store.deleteRecord('oauth-pending', state)))
      throw new AuthorizationError(
        undefined,
        'redirect',
        'unknown or already used state: start connecting again',
      );
    const flow = JSON.parse(raw) as FlowRecord;
    const server = flow.server;
    if (this.now().getTime() - flow.createdAt > stateLifetimeMs)
      throw new AuthorizationError(
        server,
        'redirect',
        'the sign-in took longer than 10 minutes: start again',
      );
    if (`${url.origin}${url.pathname}` !== new URL(flow.redirectUri).href.replace(/[?#].*$/, ''))
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
    checkIssuer(server, flow, url.searchParams.get('iss'));
    const code = url.searchParams.get('code');
    if (!code) throw new AuthorizationError(server, 'redirect', 'the redirect carries no authorization code');
    const entry = config(server);
    if (!entry) throw new AuthorizationError(server, 'redirect', 'the server is no longer configured');
    let tokens: OAuthTokens | undefined;
    const provider = flowProvider(flow, {
      clientMetadata: this.clientMetadata(flow.scope),
      client: flow.client,
      saveTokens: (saved) => {
        tokens = saved;
      },
    });
    await this.step(server, 'token', () =>
      auth(provider, {
        serverUrl: entry.url,
        authorizationCode: code,
        ...(flow.scope ? { scope: flow.scope } : {}),
        ...(flow.discovery.resourceMetadataUrl
          ? { resourceMetadataUrl: new URL(flow.discovery.resourceMetadataUrl) }
          : {}),
        fetchFn: this.fetchFn,
      }),
    );
    if (!tokens?.access_token || !flow.client)
      throw new AuthorizationError(server, 'token', 'the token endpoint sent no access token');
    const grant: OAuthGrant = {
      v: 1,
      id: randomBytes(16).toString('base64url'),
      server,
      authorizationServer: flow.discovery.authorizationServerUrl,
      ...(flow.discovery.authorizationServerMetadata
        ? { metadata: flow.discovery.authorizationServerMetadata }
        : {}),
      client: flow.client,
      ...(provider.resource ? { resource: provider.resource } : {}),
      tokens,
      ...this.expiry(tokens),
      connectedAt: this.now().toISOString(),
    };
    this.options.redactor.add(grantSecrets(grant));
    await this.options.store.saveGrant(flow.workspace, flow.user, server, JSON.stringify(grant));
    this.cache.set(keyOf(flow, server), grant);
    this.stepUps.delete(keyOf(flow, server));
    return { workspace: flow.workspace, user: flow.user, server };
  }

  /**
   * The person's current tokens for the server, refreshed first when they expire within the margin:
   * one refresh at a time in this process and across replicas (the store's claim), the rotated
   * refresh token stored. Undefined when they have not connected; a refresh the server refuses
   * removes the grant and throws (they connect again).
   */
  async tokens(person: GrantOwner, server: string): Promise<OAuthTokens | undefined> {
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
      pending = this.refresh(person, grant).finally(() => this.refreshing.delete(key));
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

  /** The provider a person's connection to an OAuth server authenticates with. */
  transportProvider(person: GrantOwner, config: RemoteServerConfig): OAuthClientProvider {
    return refreshingProvider({
      redirectUrl: this.options.redirectUrl,
      clientMetadata: this.clientMetadata(config.oauth?.scope),
      grant: () => this.cache.get(keyOf(person, config.name)),
      tokens: () => this.tokens(person, config.name),
      saveTokens: (tokens) => this.saveTokens(person, config.name, tokens),
      server: config.name,
    });
  }

  /**
   * Notes a 401 or 403 challenge a person's connection met: a 403 `insufficient_scope` names the
   * scope the next connect asks for (step-up), at most {@link stepUpLimit} times in a row.
   */
  noteChallenge(person: GrantOwner, server: string, response: Response): void {
    if (response.status !== 403) return;
    const { error, scope } = extractWWWAuthenticateParams(response);
    if (error !== 'insufficient_scope' || !scope) return;
    const key = keyOf(person, server);
    const earlier = this.stepUps.get(key);
    const fresh = earlier && this.now().getTime() - earlier.at < stateLifetimeMs;
    this.stepUps.set(key, {
      scope: mergeScopes(earlier?.scope, scope),
      count: (fresh ? earlier.count : 0) + 1,
      at: this.now().getTime(),
    });
  }

  /** Whether a connect would be a step-up past the limit (the server keeps asking for more access). */
  private stepUpFor(person: GrantOwner, server: string): { scope: string } | undefined {
    const found = this.stepUps.get(keyOf(person, server));
    if (!found || this.now().getTime() - found.at >= stateLifetimeMs) return undefined;
    if (found.count > stepUpLimit)
      throw new AuthorizationError(
        server,
        'scope',
        `the server asked for more access ${found.count} times in a row (now "${found.scope}"); stopped after ${stepUpLimit} tries`,
      );
    return found;
  }

  /** Revokes the person's tokens at the authorization server (RFC 7009, where offered), then forgets them. */
  async disconnect(person: GrantOwner, server: string): Promise<boolean> {
    const key = keyOf(person, server);
    const grant =
      this.cache.get(key) ??
      parseGrant(await this.options.store.grant(person.workspace, person.user, server));
    this.cache.delete(key);
    this.stepUps.delete(key);
    if (grant)
      await revokeGrant(grant, this.fetchFn).catch((error: unknown) =>
        this.logger.warn(
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
      grant.expiresAt - (this.options.refreshMarginMs ?? 60_000) <= this.now().getTime()
    );
  }

  private expiry(tokens: OAuthTokens): { expiresAt?: number } {
    return typeof tokens.expires_in === 'number'
      ? { expiresAt: this.now().getTime() + tokens.expires_in * 1000 }
      : {};
  }

  private async refresh(person: GrantOwner, grant: OAuthGrant): Promise<OAuthGrant> {
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
      tokens = await refreshAuthorization(grant.authorizationServer, {
        ...(grant.metadata ? { metadata: grant.metadata } : {}),
        clientInformation: grant.client,
        refreshToken: refreshToken as string,
        ...(grant.resource ? { resource: new URL(grant.resource) } : {}),
        fetchFn: this.fetchFn,
      });
    } catch (error) {
      return this.dropGrant(person, grant, `the refresh was refused: ${describeOAuthError(error)}`);
    }
    const next: OAuthGrant = { ...grant, tokens, ...this.expiry(tokens) };
    this.options.redactor.add(grantSecrets(next));
    await this.options.store.saveGrant(person.workspace, person.user, server, JSON.stringify(next));
    this.cache.set(keyOf(person, server), next);
    this.logger.info({ server }, 'OAuth tokens refreshed');
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
    this.logger.warn({ server: grant.server }, `OAuth connection dropped: ${why}`);
    throw reconnect(grant.server, why);
  }

  /** An unauthenticated request to the server: its 401 challenge names the metadata and scope. */
  private async challenge(
    config: RemoteServerConfig,
  ): Promise<{ resourceMetadataUrl?: URL; scope?: string }> {
    const response = await this.fetchFn(config.url, {
      method: config.transport === 'sse' ? 'GET' : 'POST',
      headers: {
        accept: 'application/json, text/event-stream',
        ...(config.transport === 'sse' ? {} : { 'content-type': 'application/json' }),
      },
      ...(config.transport === 'sse'
        ? {}
        : {
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 0,
              method: 'initialize',
              params: {
                protocolVersion: '2025-11-25',
                capabilities: {},
                clientInfo: { name: this.options.clientName ?? 'ai-assistant', version: '0' },
              },
            }),
          }),
      signal: AbortSignal.timeout(15_000),
    });
    await response.body?.cancel().catch(() => undefined);
    if (response.status !== 401) return {};
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
    return { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
  }

  private async step<T>(server: string, step: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof AuthorizationError) throw error;
      throw new AuthorizationError(server, step, describeOAuthError(error), { cause: error });
    }
  }
}

const keyOf = (person: GrantOwner, server: string) =>
  `${person.workspace}\u0000${person.user}\u0000${server}`;

/** The scope to ask for: the challenge's, else the server's `scopes_supported`, else the config's; plus offline_access where the AS offers it. */
export function chooseScope(from: {
  challenge?: string;
  supported?: string[];
  configured?: string;
  offline: boolean;
}): string | undefined {
  const base = from.challenge || from.supported?.join(' ') || from.configured;
  if (!base) return undefined;
  return from.offline ? mergeScopes(base, 'offline_access') : base;
}

function mergeScopes(first: string | undefined, second: string): string {
  return [...new Set([...(first ?? '').split(' '), ...second.split(' ')].filter(Boolean))].join(' ');
}

/** RFC 9207: where the AS says it sends `iss` on the redirect, it must be there and be its issuer. */
function checkIssuer(server: string, flow: FlowRecord, iss: string | null): void {
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

/** A person must connect again: the host cannot get them a token. */
function reconnect(server: string, why: string): AuthorizationError {
  return new AuthorizationError(server, 'refresh', `${why}; connect the server again`, {
    reconnect: true,
  });
}
