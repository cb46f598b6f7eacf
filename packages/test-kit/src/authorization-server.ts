import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import type Provider from 'oidc-provider';
import type { Configuration } from 'oidc-provider';

/** Options of {@link startAuthorizationServer}. */
export interface AuthorizationServerOptions {
  /** The protected resources (MCP server URLs) tokens may be issued for (more may be added later). */
  resources?: string[];
  /** Scopes of those resources (default `mcp:read mcp:write`). */
  scopes?: string[];
  /** Access tokens live this long (default 3600 s). */
  accessTokenTtlSeconds?: number;
  /** Pre-registered clients (oidc-provider client metadata). */
  clients?: Configuration['clients'];
  /** The algorithms client assertions (private_key_jwt) may be signed with (oidc-provider's default: many). */
  clientAuthSigningAlgorithms?: string[];
}

/** A running authorization server, and what it was asked. */
export interface AuthorizationServer {
  issuer: string;
  /** The resources tokens may be issued for: add a server started after this one. */
  resources: string[];
  /** Token endpoint requests by grant type, registrations, revocations. */
  counts: { token: Record<string, number>; registrations: number; revocations: number };
  /** Every refresh token presented to the token endpoint, in order, whether it was accepted or not. */
  refreshTokensPresented: string[];
  /**
   * From now on the token endpoint answers HTTP 503 (`unavailable`) or drops the connection (`drop`),
   * as an authorization server does that is down or being restarted; `undefined` ends the outage.
   */
  outage(kind: 'unavailable' | 'drop' | undefined): void;
  close(): Promise<void>;
}

/**
 * A real OAuth 2 / OpenID authorization server on loopback: panva's oidc-provider (OpenID certified),
 * with PKCE (S256) required, open dynamic client registration, resource indicators (RFC 8707: JWT
 * access tokens whose audience is the MCP server), refresh tokens rotated on use, revocation and
 * introspection. Sign-in and consent finish at once, with no HTML: the account is the request's
 * `x-test-account` header (default `user`), as {@link followAuthorization} sends it; `x-test-deny: 1`
 * answers access_denied.
 */
export async function startAuthorizationServer(
  options: AuthorizationServerOptions,
): Promise<AuthorizationServer> {
  const scopes = options.scopes ?? ['mcp:read', 'mcp:write'];
  const resources = [...(options.resources ?? [])];
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: 'test-key' };
  const counts: AuthorizationServer['counts'] = { token: {}, registrations: 0, revocations: 0 };
  const refreshTokensPresented: string[] = [];
  let outage: 'unavailable' | 'drop' | undefined;
  let issuer = '';
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

  // Loaded here, not when test-kit is imported: most tests never start an authorization server.
  const { default: OidcProvider } = await import('oidc-provider');
  const provider = new OidcProvider(issuer, {
    clients: options.clients ?? [],
    jwks: { keys: [jwk] },
    scopes: ['openid', 'offline_access', ...scopes],
    pkce: { required: () => true },
    ...(options.clientAuthSigningAlgorithms
      ? {
          enabledJWA: {
            clientAuthSigningAlgValues: options.clientAuthSigningAlgorithms as NonNullable<
              Configuration['enabledJWA']
            >['clientAuthSigningAlgValues'],
          },
        }
      : {}),
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      // The client that got a token may revoke it (oidc-provider's own rule, stated so it stays quiet).
      revocation: {
        enabled: true,
        allowedPolicy: async (_context, client, token) => token.clientId === client.clientId,
      },
      introspection: { enabled: true },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resources[0] as string,
        useGrantedResource: () => true,
        getResourceServerInfo: (_context, resource) => {
          if (!resources.includes(resource)) throw new Error(`unknown resource ${resource}`);
          return {
            scope: scopes.join(' '),
            audience: resource,
            accessTokenFormat: 'jwt',
            accessTokenTTL: options.accessTokenTtlSeconds ?? 3600,
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    // Explicit lifetimes (oidc-provider notices defaults on stdout otherwise).
    ttl: {
      AccessToken: options.accessTokenTtlSeconds ?? 3600,
      AuthorizationCode: 60,
      Grant: 14 * 86_400,
      Interaction: 600,
      Session: 86_400,
      RefreshToken: 14 * 86_400,
      ClientCredentials: 600,
      IdToken: 3600,
    },
    issueRefreshToken: async (_context, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    interactions: { url: (_context, interaction) => `/interaction/${interaction.uid}` },
    findAccount: async (_context, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
  });
  provider.on('grant.success', (context) => {
    const grant = String(
      (context.oidc.params as { grant_type?: unknown } | undefined)?.grant_type ?? 'unknown',
    );
    counts.token[grant] = (counts.token[grant] ?? 0) + 1;
  });
  provider.on('registration_create.success', () => {
    counts.registrations += 1;
  });
  provider.use(async (context, next) => {
    if (context.path === '/token' && outage === 'drop') {
      context.req.socket.destroy();
      return;
    }
    if (context.path === '/token' && outage === 'unavailable') {
      context.status = 503;
      context.body = 'Service Unavailable';
      return;
    }
    await next();
    const params = context.oidc?.params as { grant_type?: unknown; refresh_token?: unknown } | undefined;
    if (
      context.oidc?.route === 'token' &&
      params?.grant_type === 'refresh_token' &&
      typeof params.refresh_token === 'string'
    )
      refreshTokensPresented.push(params.refresh_token);
    if (context.oidc?.route === 'revocation' && context.status === 200) counts.revocations += 1;
  });

  const callback = provider.callback();
  http.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const match = /^\/interaction\/([^/?]+)/.exec(request.url ?? '');
    if (match && request.method === 'GET') {
      void finishInteraction(provider, request, response).catch((error: unknown) => {
        response.writeHead(500, { 'content-type': 'text/plain' });
        response.end(String(error));
      });
      return;
    }
    callback(request, response);
  });
  return {
    issuer,
    resources,
    counts,
    refreshTokensPresented,
    outage: (kind) => {
      outage = kind;
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** Sign-in, then consent to what was asked, for the header's account: no pages, no questions. */
async function finishInteraction(provider: Provider, request: IncomingMessage, response: ServerResponse) {
  const details = await provider.interactionDetails(request, response);
  if (request.headers['x-test-deny'] === '1') {
    await provider.interactionFinished(
      request,
      response,
      { error: 'access_denied', error_description: 'the person said no' },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  if (details.prompt.name === 'login') {
    const account = String(request.headers['x-test-account'] ?? 'user');
    await provider.interactionFinished(
      request,
      response,
      { login: { accountId: account } },
      {
        mergeWithLastSubmission: false,
      },
    );
    return;
  }
  const accountId = details.session?.accountId as string;
  const clientId = details.params.client_id as string;
  const grant = details.grantId
    ? ((await provider.Grant.find(details.grantId)) ?? new provider.Grant({ accountId, clientId }))
    : new provider.Grant({ accountId, clientId });
  const missing = details.prompt.details as {
    missingOIDCScope?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
    grant.addResourceScope(resource, scopes.join(' '));
  const grantId = await grant.save();
  await provider.interactionFinished(
    request,
    response,
    { consent: { grantId } },
    {
      mergeWithLastSubmission: true,
    },
  );
}
