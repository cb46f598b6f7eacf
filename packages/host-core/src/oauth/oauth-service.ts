import type { Logger } from '@ai-assistant/chat-types';
import { silentLogger } from '@ai-assistant/chat-types';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/client';
import { nodeCrypto } from '../builtins.js';
import type { RemoteServerConfig } from '../config/server-types.js';
import { fetchWithin } from '../net/address-guard.js';
import type { Redactor } from '../redaction.js';
import { AuthorizationError, describeOAuthError } from './authorization-error.js';
import { boundedFetch, type OAuthFetchLimits } from './bounded-fetch.js';
import { redeemRedirect, stateLifetimeMs } from './checks.js';
import { challenge, chooseScope, discover } from './discovery.js';
import { type FlowRecord, flowProvider } from './flow-provider.js';
import { grantedScope, type OAuthGrant, sha256 } from './grant.js';
import { type GrantOwner, Grants } from './grants.js';
import type { OAuthStore } from './oauth-store.js';
import { sdkAuth } from './sdk-auth.js';
import { StepUps } from './step-ups.js';

/** An authorization server's short id: in its redirect URI and its client ID metadata document's URL. */
const authorizationServerId = (authorizationServer: string) => sha256(authorizationServer).slice(0, 16);

/**
 * The redirect URI for one authorization server (its id): the host's, with the id as `as`. A client
 * registered under the host's plain URI before is registered again under this one.
 */
function redirectFor(redirectUrl: string, id: string): string {
  const url = new URL(redirectUrl);
  url.searchParams.set('as', id);
  return url.toString();
}

/** Whether a stored registration's `scope` (none: unrestricted) holds every scope of `wanted`. */
function registeredFor(registration: string, wanted: string | undefined): boolean {
  const registered = (JSON.parse(registration) as { scope?: unknown }).scope;
  if (!wanted || typeof registered !== 'string') return true;
  const held = new Set(registered.split(' '));
  return wanted.split(' ').every((scope) => held.has(scope));
}

/** Where a client ID metadata document URL names the authorization server (its id). */
const serverPlaceholder = '{as}';

/** Options of {@link OAuthService}. */
export interface OAuthOptions {
  store: OAuthStore;
  /** The exact redirect URI the authorization server sends people back to (the bot's callback). */
  redirectUrl: string;
  /**
   * An https URL where the host serves {@link OAuthService.clientMetadataDocument} (client ID
   * metadata). With `{as}` in it (`https://bot.example/oauth/client-metadata/{as}.json`), each
   * authorization server gets its own document, client ID and redirect URI (the mix-up defence);
   * without, one document serves every server with `redirectUrl` itself.
   */
  clientMetadataUrl?: string;
  clientName?: string;
  redactor: Redactor;
  logger?: Logger;
  now?: () => Date;
  fetch?: typeof fetch;
  /** How long an access token is taken as fresh before it expires (default 60 s): it is refreshed sooner. */
  refreshMarginMs?: number;
  /** Caps on each OAuth request: 1 MB of answer, 15 s (discovery, registration, tokens, revocation). */
  limits?: OAuthFetchLimits;
}

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
  private readonly grants: Grants;
  private readonly stepUps: StepUps;

  constructor(private readonly options: OAuthOptions) {
    this.logger = options.logger ?? silentLogger;
    this.now = options.now ?? (() => new Date());
    this.fetchFn = options.fetch ?? fetch;
    this.stepUps = new StepUps(this.now);
    this.grants = new Grants({
      store: options.store,
      redactor: options.redactor,
      logger: this.logger,
      now: this.now,
      fetch: boundedFetch(this.fetchFn, options.limits),
      ...(options.refreshMarginMs !== undefined ? { refreshMarginMs: options.refreshMarginMs } : {}),
    });
  }

  /** The person's current tokens for the server, refreshed first when they are about to expire. */
  tokens(person: GrantOwner, server: string): Promise<OAuthTokens | undefined> {
    return this.grants.tokens(person, server);
  }

  /** Revokes the person's tokens at the authorization server (RFC 7009, where offered), then forgets them. */
  disconnect(person: GrantOwner, server: string, config?: RemoteServerConfig): Promise<boolean> {
    this.stepUps.forget(person, server);
    return this.grants.revoke(person, server, this.fetchFor(config));
  }

  /**
   * The client ID metadata document the host serves at `clientMetadataUrl`; with `{as}` in it, the
   * one of the authorization server whose id `server` is (undefined for anything else).
   */
  clientMetadataDocument(server?: string): (OAuthClientMetadata & { client_id?: string }) | undefined {
    const template = this.options.clientMetadataUrl;
    if (!template?.includes(serverPlaceholder))
      return { ...(template ? { client_id: template } : {}), ...this.clientMetadata() };
    if (!server || !/^[\w-]{16}$/.test(server)) return undefined;
    return {
      client_id: template.replace(serverPlaceholder, server),
      ...this.clientMetadata(undefined, redirectFor(this.options.redirectUrl, server)),
    };
  }

  private clientMetadata(scope?: string, redirectUri = this.options.redirectUrl): OAuthClientMetadata {
    return {
      client_name: this.options.clientName ?? 'ai-assistant',
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(scope ? { scope } : {}),
    };
  }

  /**
   * Whether a server asks people to sign in with OAuth and its authorization server can be found
   * (an admin's Test): the challenge, then discovery; returns the authorization server. Throws
   * `AuthorizationError` naming the step that failed.
   */
  async probe(config: RemoteServerConfig): Promise<{ authorizationServer: string }> {
    const fetchFn = this.fetchFor(config);
    const found = await this.step(config.name, 'discovery', () =>
      challenge(config, fetchFn, this.options.clientName ?? 'ai-assistant'),
    );
    const info = await this.step(config.name, 'discovery', () =>
      discover(config, found.resourceMetadataUrl, fetchFn),
    );
    if (!info.authorizationServerMetadata)
      throw new AuthorizationError(
        config.name,
        'discovery',
        'the server names no authorization server that answers',
      );
    return { authorizationServer: String(info.authorizationServerUrl) };
  }

  /**
   * Starts connecting `person` to `config`'s server: discovery, the client's identity, PKCE and a
   * state bound to (workspace, person, server) for 10 minutes. Returns the URL to open.
   */
  async begin(person: GrantOwner, config: RemoteServerConfig): Promise<{ url: string; expiresAt: Date }> {
    const server = config.name;
    const fetchFn = this.fetchFor(config);
    const found = await this.step(server, 'discovery', () =>
      challenge(config, fetchFn, this.options.clientName ?? 'ai-assistant'),
    );
    const info = await this.step(server, 'discovery', () =>
      discover(config, found.resourceMetadataUrl, fetchFn),
    );
    const stepUp = this.stepUps.pending(person, server);
    const authorizationServerUrl = String(info.authorizationServerUrl);
    const preRegistered = config.oauth?.clientId
      ? {
          client_id: config.oauth.clientId,
          ...(config.oauth.clientSecret ? { client_secret: config.oauth.clientSecret } : {}),
        }
      : undefined;
    // A redirect URI of this authorization server's own (the mix-up defence of RFC 9700 §4.4.2):
    // a code another server's flow sends back to it is refused, whether or not `iss` comes with it.
    const serverId = authorizationServerId(authorizationServerUrl);
    const ownRedirect = redirectFor(this.options.redirectUrl, serverId);
    const documentPerServer = this.options.clientMetadataUrl?.includes(serverPlaceholder) === true;
    const metadataUrl = this.options.clientMetadataUrl?.replace(serverPlaceholder, serverId);
    const registrationId = sha256(`${authorizationServerUrl}\u0000${ownRedirect}`);
    const scope = chooseScope({
      challenge: stepUp?.scope ?? found.scope,
      supported: info.resourceMetadata?.scopes_supported,
      configured: config.oauth?.scope,
      offline: info.authorizationServerMetadata?.scopes_supported?.includes('offline_access') === true,
    });
    const registered = preRegistered
      ? undefined
      : await this.options.store.record('oauth-client', registrationId);
    // A client registered for fewer scopes than this flow asks for (a step-up, a server naming other
    // scopes) is registered again: an authorization server may refuse a client any scope beyond those
    // it registered with (oidc-provider answers invalid_scope).
    const stored = registered && registeredFor(registered, scope) ? registered : undefined;
    // A pre-registered client keeps the URI the operator registered; so does one client ID metadata
    // document for every authorization server (it lists one URI); a document per server has its own.
    const metadataDocument =
      !preRegistered &&
      !stored &&
      metadataUrl !== undefined &&
      (info.authorizationServerMetadata as { client_id_metadata_document_supported?: boolean } | undefined)
        ?.client_id_metadata_document_supported === true;
    const redirectUri =
      preRegistered || (metadataDocument && !documentPerServer) ? this.options.redirectUrl : ownRedirect;
    const flow: FlowRecord = {
      state: nodeCrypto().randomBytes(32).toString('base64url'),
      workspace: person.workspace,
      user: person.user,
      server,
      redirectUri,
      createdAt: this.now().getTime(),
      discovery: {
        authorizationServerUrl,
        ...(found.resourceMetadataUrl ? { resourceMetadataUrl: found.resourceMetadataUrl.toString() } : {}),
        ...(info.resourceMetadata ? { resourceMetadata: info.resourceMetadata } : {}),
        ...(info.authorizationServerMetadata
          ? { authorizationServerMetadata: info.authorizationServerMetadata }
          : {}),
      },
      ...(scope ? { scope } : {}),
      ...(stepUp ? { stepUp: true } : {}),
    };
    let authorizationUrl: URL | undefined;
    const provider = flowProvider(flow, {
      clientMetadata: this.clientMetadata(scope, redirectUri),
      ...(metadataUrl ? { clientMetadataUrl: metadataUrl } : {}),
      client: preRegistered ?? (stored ? (JSON.parse(stored) as OAuthClientInformationMixed) : undefined),
      saveClient: async (client) => {
        flow.client = client;
        // One registration per authorization server (and its redirect URI), shared by everyone.
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
      sdkAuth().then(({ auth }) =>
        auth(provider, {
          serverUrl: config.url,
          ...(scope ? { scope } : {}),
          ...(found.resourceMetadataUrl ? { resourceMetadataUrl: found.resourceMetadataUrl } : {}),
          fetchFn: fetchFn,
        }),
      ),
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
    config: (
      server: string,
      workspace: string,
    ) => RemoteServerConfig | undefined | Promise<RemoteServerConfig | undefined>,
  ): Promise<GrantOwner & { server: string }> {
    const { flow, code, iss } = await redeemRedirect(callback, this.options.store, this.now());
    const server = flow.server;
    const entry = await config(server, flow.workspace);
    if (!entry) throw new AuthorizationError(server, 'redirect', 'the server is no longer configured');
    let tokens: OAuthTokens | undefined;
    const provider = flowProvider(flow, {
      clientMetadata: this.clientMetadata(flow.scope, flow.redirectUri),
      client: flow.client,
      saveTokens: (saved) => {
        tokens = saved;
      },
    });
    await this.step(server, 'token', () =>
      sdkAuth().then(({ auth }) =>
        auth(provider, {
          serverUrl: entry.url,
          authorizationCode: code,
          // The SDK checks `iss` again (RFC 9207), against the issuer it discovers itself.
          ...(iss ? { iss } : {}),
          // As at discovery: a 2025-03-26 server's guessed authorization server may name a path as issuer.
          ...(flow.discovery.resourceMetadata ? {} : { skipIssuerMetadataValidation: true }),
          ...(flow.scope ? { scope: flow.scope } : {}),
          ...(flow.discovery.resourceMetadataUrl
            ? { resourceMetadataUrl: new URL(flow.discovery.resourceMetadataUrl) }
            : {}),
          fetchFn: this.fetchFor(entry),
        }),
      ),
    );
    if (!tokens?.access_token || !flow.client)
      throw new AuthorizationError(server, 'token', 'the token endpoint sent no access token');
    const grant: OAuthGrant = {
      v: 1,
      id: nodeCrypto().randomBytes(16).toString('base64url'),
      server,
      authorizationServer: flow.discovery.authorizationServerUrl,
      ...(flow.discovery.authorizationServerMetadata
        ? { metadata: flow.discovery.authorizationServerMetadata }
        : {}),
      client: flow.client,
      ...(provider.resource ? { resource: provider.resource } : {}),
      tokens,
      ...(flow.scope ? { scope: flow.scope } : {}),
      ...this.grants.expiry(tokens),
      connectedAt: this.now().toISOString(),
    };
    await this.grants.save(flow, grant);
    // The count of step-ups in a row survives the sign-in: a server that asks again is the loop to stop.
    if (flow.stepUp) this.stepUps.answered(flow, server);
    return { workspace: flow.workspace, user: flow.user, server };
  }

  /**
   * The fetch a person's connection to an OAuth server sends its requests through (`send` reaches the
   * server): each carries their current access token; a 401 has the grant read again and, when the
   * store still holds the refused token, refreshed through {@link Grants} at the grant's own
   * authorization server, then the request is sent once more. A challenge's `resource_metadata` is
   * never followed here: a connection never changes the authorization server (only Connect does).
   */
  authorizedFetch(person: GrantOwner, config: RemoteServerConfig, send: typeof fetch): typeof fetch {
    const server = config.name;
    // Requests to the authorization server are bounded in size and time, as every OAuth request.
    const toAuthorizationServer = this.fetchFor(config);
    const withToken = (input: string | URL | Request, init: RequestInit | undefined, token: string) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${token}`);
      return send(input, { ...init, headers });
    };
    return async (input, init) => {
      const tokens = await this.grants.tokens(person, server, toAuthorizationServer);
      if (!tokens)
        throw new AuthorizationError(
          server,
          'refresh',
          'the person is not connected; connect the server again',
          {
            reconnect: true,
          },
        );
      const response = await withToken(input, init, tokens.access_token);
      if (response.status !== 401) return response;
      const fresh = await this.grants.refused(person, server, tokens.access_token, toAuthorizationServer);
      if (!fresh) return response;
      await response.body?.cancel().catch(() => undefined);
      return withToken(input, init, fresh.access_token);
    };
  }

  /**
   * Notes a 401 or 403 challenge a person's connection met: a 403 `insufficient_scope` names the
   * scope the next connect asks for besides the one granted (step-up), at most `stepUpLimit` times
   * in a row; never again for a scope the token already has.
   */
  noteChallenge(person: GrantOwner, server: string, response: Response): void {
    const grant = this.grants.cached(person, server);
    this.stepUps.note(person, server, response, grant ? grantedScope(grant) : undefined);
  }

  /**
   * How the OAuth requests for a server are sent: through the address guard for a workspace's server,
   * and each under the caps (a deadline, 1 MB of answer).
   */
  private fetchFor(config: RemoteServerConfig | undefined): typeof fetch {
    return boundedFetch(fetchWithin(config?.publicAddressesOnly, this.fetchFn), this.options.limits);
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
