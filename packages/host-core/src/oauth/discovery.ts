import type { RemoteServerConfig } from '../config/server-types.js';
import { OAuthResponseError } from './bounded-fetch.js';
import { checkAuthorizationServer } from './checks.js';
import { sdkAuth } from './sdk-auth.js';

/** The two ways a request can open a connection: 2026-07-28's `server/discover`, then 2025's `initialize`. */
function openingRequests(clientName: string): Array<{ headers: Record<string, string>; body: unknown }> {
  const clientInfo = { name: clientName, version: '0' };
  return [
    {
      headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
      body: {
        jsonrpc: '2.0',
        id: 0,
        method: 'server/discover',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': clientInfo,
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      },
    },
    {
      headers: { 'mcp-protocol-version': '2025-11-25' },
      body: {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo },
      },
    },
  ];
}

/**
 * An unauthenticated request to the server: its 401 challenge names the metadata and scope. It opens
 * as a 2026-07-28 client would (`server/discover`), then as a 2025 one (`initialize`) where that
 * brought no challenge: a server of either era answers its own opening with the 401.
 * `fetchFn` sets the deadline (the OAuth client's bounded fetch).
 */
export async function challenge(
  config: RemoteServerConfig,
  fetchFn: typeof fetch,
  clientName: string,
): Promise<{ resourceMetadataUrl?: URL; scope?: string }> {
  const attempts =
    config.transport === 'sse'
      ? [{ method: 'GET', headers: {} }]
      : openingRequests(clientName).map(({ headers, body }) => ({
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        }));
  for (const attempt of attempts) {
    const response = await fetchFn(config.url, {
      ...attempt,
      headers: { accept: 'application/json, text/event-stream', ...attempt.headers },
    });
    await response.body?.cancel().catch(() => undefined);
    if (response.status !== 401) continue;
    const { extractWWWAuthenticateParams } = await sdkAuth();
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
    return { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
  }
  return {};
}

/**
 * The protected resource's metadata (RFC 9728), then the authorization server it names, checked
 * before anything is sent to it, then that server's metadata (RFC 8414, OpenID). A 2025-03-26 server
 * without resource metadata: its origin is taken as the authorization server.
 */
export async function discover(
  config: RemoteServerConfig,
  resourceMetadataUrl: URL | undefined,
  fetchFn: typeof fetch,
) {
  const { discoverAuthorizationServerMetadata, discoverOAuthProtectedResourceMetadata } = await sdkAuth();
  const resourceMetadata = await discoverOAuthProtectedResourceMetadata(
    config.url,
    resourceMetadataUrl ? { resourceMetadataUrl } : {},
    fetchFn,
  ).catch((error: unknown) => {
    // None is a 2025-03-26 server; one too large or too slow is named, not guessed past.
    if (error instanceof OAuthResponseError) throw error;
    return undefined;
  });
  const named = resourceMetadata?.authorization_servers?.[0];
  const authorizationServerUrl = named ?? String(new URL('/', config.url));
  checkAuthorizationServer(config.name, authorizationServerUrl, undefined, named !== undefined);
  const authorizationServerMetadata = await discoverAuthorizationServerMetadata(authorizationServerUrl, {
    fetchFn: fetchFn,
    // A 2025-03-26 server without resource metadata: its origin was taken as the authorization server,
    // whose metadata may name a path of it as the issuer (checked below with that in mind).
    ...(named === undefined ? { skipIssuerValidation: true } : {}),
  });
  checkAuthorizationServer(
    config.name,
    authorizationServerUrl,
    authorizationServerMetadata,
    named !== undefined,
  );
  return { authorizationServerUrl, authorizationServerMetadata, resourceMetadata };
}

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

export function mergeScopes(first: string | undefined, second: string): string {
  return [...new Set([...(first ?? '').split(' '), ...second.split(' ')].filter(Boolean))].join(' ');
}
