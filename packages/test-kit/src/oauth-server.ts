import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import type Provider from 'oidc-provider';
import type { ClientMetadata, Grant, KoaContextWithOIDC } from 'oidc-provider';
import { oauthMemoryAdapter } from './oauth-memory-adapter.js';
import { listenOnLoopback } from './ports.js';

/** Options of {@link startOAuthServer}. */
export interface OAuthServerOptions {
  /** Resource indicators (MCP server URLs) tokens may be issued for; push more onto `resources` later. */
  resources?: string[];
  /** The scopes those resources accept (default `mcp:read mcp:write`). */
  scopes?: string[];
  /** Lifetime of access tokens (default 3600 s). */
  accessTokenTtlSeconds?: number;
  /** Pre-registered clients, in oidc-provider's client metadata (e.g. client_secret_basic, client_credentials). */
  clients?: ClientMetadata[];
  /** Every authorization ends in `access_denied` (as the `x-test-deny: 1` header does for one). */
  deny?: boolean;
}

/** Token endpoint requests by `grant_type`, whether they succeeded or not. */
export interface OAuthTokenCounts {
  authorization_code: number;
  refresh_token: number;
  client_credentials: number;
  [grantType: string]: number;
}

/** A running {@link startOAuthServer}, and what it was asked. */
export interface OAuthServer {
  /** The issuer, `http://127.0.0.1:<port>` (no trailing slash). */
  issuer: string;
  /** The server's base URL (the same as `issuer`). */
  url: string;
  /** The resources tokens may be issued for: push a server started after this one. */
  resources: string[];
  /** Token requests by grant type, successful dynamic registrations, revocation requests answered 200. */
  counts: { token: OAuthTokenCounts; registrations: number; revocations: number };
  /** The `token` of each revocation request answered 200, in order. */
  revokedTokens: string[];
  close(): Promise<void>;
}

const oidcScopes = new Set(['openid', 'offline_access']);

/**
 * A real OAuth 2.1 authorization server on loopback: panva's oidc-provider (OpenID certified) with
 * authorization code + PKCE (S256 only), open dynamic client registration (RFC 7591), resource
 * indicators (RFC 8707) giving JWT access tokens whose audience is the resource, refresh tokens rotated
 * on use, revocation (RFC 7009), introspection, client credentials, and `iss` in authorization responses
 * (RFC 9207). Sign-in and consent finish at once, with no HTML: the account is the request's
 * `x-test-account` header (default `user`), as `followAuthorization` sends it; `x-test-deny: 1` says no.
 * oidc-provider is loaded only when a server starts.
 */
export async function startOAuthServer(options: OAuthServerOptions = {}): Promise<OAuthServer> {
  const scopes = options.scopes ?? ['mcp:read', 'mcp:write'];
  const resources = [...(options.resources ?? [])];
  const accessTokenTtl = options.accessTokenTtlSeconds ?? 3600;
  const counts: OAuthServer['counts'] = {
    token: { authorization_code: 0, refresh_token: 0, client_credentials: 0 },
    registrations: 0,
    revocations: 0,
  };
  const revokedTokens: string[] = [];
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: 'test-kit-rs256' };

  const http = createServer();
  const issuer = await listenOnLoopback(http);
  // Loaded here, not when test-kit is imported: most tests never start an authorization server.
  const { default: OidcProvider, errors } = await import('oidc-provider');
  const provider = new OidcProvider(issuer, {
    adapter: oauthMemoryAdapter(),
    clients: options.clients ?? [],
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    scopes: ['openid', 'offline_access', ...scopes],
    pkce: { required: () => true },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      introspection: {
        enabled: true,
        // oidc-provider's default rule, stated so it stays quiet: a public client sees only its own tokens.
        allowedPolicy: async (context, client, token) =>
          client.clientAuthMethod !== 'none' || token.clientId === context.oidc.client?.clientId,
      },
      revocation: {
        enabled: true,
        allowedPolicy: async (_context, client, token) => token.clientId === client.clientId,
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_context, _client, oneOf) => oneOf ?? resources[0],
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_context, resource) => {
          if (!resources.includes(resource))
            throw new errors.InvalidTarget(
              `${resource} is not a resource of this test server (known: ${resources.join(', ') || 'none'}); pass it in resources`,
            );
          return {
            scope: scopes.join(' '),
            audience: resource,
            accessTokenFormat: 'jwt',
            accessTokenTTL: accessTokenTtl,
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    issueRefreshToken: async (_context, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    interactions: { url: async (_context, interaction) => `/interaction/${interaction.uid}` },
    findAccount: async (_context, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    clientBasedCORS: () => true,
    // Errors shown to the browser as JSON, so followAuthorization can say what went wrong.
    renderError: async (context, out) => {
      context.type = 'application/json';
      context.body = JSON.stringify(out);
    },
    // Every lifetime stated: oidc-provider prints a notice for each default it uses.
    ttl: {
      AccessToken: accessTokenTtl,
      AuthorizationCode: 60,
      ClientCredentials: accessTokenTtl,
      IdToken: 3600,
      Grant: 14 * 86_400,
      Interaction: 600,
      RefreshToken: 14 * 86_400,
      Session: 86_400,
      DeviceCode: 600,
      BackchannelAuthenticationRequest: 600,
    },
  });
  provider.on('registration_create.success', () => {
    counts.registrations += 1;
  });
  provider.use(async (context: KoaContextWithOIDC, next) => {
    await next();
    const route = context.oidc?.route;
    const params = context.oidc?.params as { grant_type?: unknown; token?: unknown } | undefined;
    if (route === 'token' && typeof params?.grant_type === 'string')
      counts.token[params.grant_type] = (counts.token[params.grant_type] ?? 0) + 1;
    if (route === 'revocation' && context.status === 200) {
      counts.revocations += 1;
      if (typeof params?.token === 'string') revokedTokens.push(params.token);
    }
  });

  const callback = provider.callback();
  http.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (request.method === 'GET' && request.url?.startsWith('/interaction/')) {
      finishInteraction(provider, request, response, options.deny === true).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
        response.end(`test-kit OAuth server: the interaction failed: ${String(error)}`);
      });
      return;
    }
    void callback(request, response);
  });

  return {
    issuer,
    url: issuer,
    resources,
    counts,
    revokedTokens,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/**
 * Sign-in and consent in one step for the `x-test-account` account: a grant of every scope and resource
 * the client asked for, then back to the authorization endpoint (which redirects to the client).
 */
async function finishInteraction(
  provider: Provider,
  request: IncomingMessage,
  response: ServerResponse,
  denyAll: boolean,
) {
  const details = await provider.interactionDetails(request, response);
  if (denyAll || request.headers['x-test-deny'] === '1') {
    await provider.interactionFinished(
      request,
      response,
      { error: 'access_denied', error_description: 'the test account said no' },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  const accountHeader = request.headers['x-test-account'];
  const accountId = (Array.isArray(accountHeader) ? accountHeader[0] : accountHeader) || 'user';
  const clientId = String(details.params.client_id);
  const existing = details.grantId ? await provider.Grant.find(details.grantId) : undefined;
  const grant: Grant =
    existing?.accountId === accountId ? existing : new provider.Grant({ accountId, clientId });

  const requested = String(details.params.scope ?? '')
    .split(' ')
    .filter(Boolean);
  const asked = requested.filter((scope) => oidcScopes.has(scope));
  if (asked.length > 0) grant.addOIDCScope(asked);
  const resourceScopes = requested.filter((scope) => !oidcScopes.has(scope));
  const resources = [details.params.resource].flat().filter((value) => typeof value === 'string');
  for (const resource of resources) grant.addResourceScope(resource, resourceScopes);
  // What the consent prompt still misses (claims of openid requests, scopes of a default resource).
  const missing = details.prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope);
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
    grant.addResourceScope(resource, scopes);
  const grantId = await grant.save();
  await provider.interactionFinished(
    request,
    response,
    { login: { accountId }, consent: { grantId } },
    { mergeWithLastSubmission: false },
  );
}
