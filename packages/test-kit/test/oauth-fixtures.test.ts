import { createServer } from 'node:http';
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followAuthorization } from '../src/headless-browser.js';
import { type OAuthServer, startOAuthServer } from '../src/oauth-server.js';
import { listenOnLoopback } from '../src/ports.js';
import { type ProtectedMcpServer, startProtectedMcpServer } from '../src/protected-mcp-server.js';

const redirectUrl = 'http://127.0.0.1:9/oauth/callback';

/** The smallest OAuthClientProvider: everything in memory; the authorization URL kept, not opened. */
class MemoryClientProvider implements OAuthClientProvider {
  readonly redirectUrl: string;
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;

  constructor(redirect = redirectUrl) {
    this.redirectUrl = redirect;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'test-kit host',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
    if (scope === 'all' || scope === 'client') this.information = undefined;
  }
}

async function whoami(url: string, authProvider: OAuthClientProvider) {
  const client = new Client({ name: 'test-kit host', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider }));
  try {
    const result = await client.callTool({ name: 'whoami' });
    return result.structuredContent as { sub: string; scope: string; jti: string };
  } finally {
    await client.close();
  }
}

describe('OAuth fixtures: a real authorization server, a protected MCP server, a headless browser', () => {
  let as: OAuthServer;
  let server: ProtectedMcpServer;

  beforeAll(async () => {
    as = await startOAuthServer({
      accessTokenTtlSeconds: 600,
      clients: [
        {
          client_id: 'workspace-bot',
          client_secret: 'workspace-secret',
          grant_types: ['client_credentials'],
          response_types: [],
          redirect_uris: [],
          token_endpoint_auth_method: 'client_secret_basic',
          scope: 'mcp:read',
        },
        {
          client_id: 'host-app',
          client_secret: 'host-secret',
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          redirect_uris: [redirectUrl],
          token_endpoint_auth_method: 'client_secret_post',
        },
      ],
    });
    server = await startProtectedMcpServer({ issuer: as.issuer });
    as.resources.push(server.url);
  });

  afterAll(async () => {
    await server?.close();
    await as?.close();
  });

  /** The SDK's own flow: discovery, registration, the browser, the code exchange. */
  async function signIn(account: string, scope?: string) {
    const provider = new MemoryClientProvider();
    expect(await auth(provider, { serverUrl: server.url, ...(scope ? { scope } : {}) })).toBe('REDIRECT');
    const back = new URL(await followAuthorization(String(provider.authorizationUrl), { account }));
    expect(`${back.origin}${back.pathname}`).toBe(redirectUrl);
    expect(back.searchParams.get('iss')).toBe(as.issuer);
    const code = back.searchParams.get('code');
    expect(code, back.href).toBeTruthy();
    expect(await auth(provider, { serverUrl: server.url, authorizationCode: code ?? '' })).toBe('AUTHORIZED');
    return provider;
  }

  async function tokenEndpoints() {
    const metadata = (await (await fetch(`${as.issuer}/.well-known/openid-configuration`)).json()) as {
      token_endpoint: string;
      revocation_endpoint: string;
    };
    return metadata;
  }

  it('serves RFC 9728 metadata and answers 401 with resource_metadata without a token', async () => {
    const metadata = await (await fetch(server.prmUrl)).json();
    expect(metadata).toEqual({
      resource: server.url,
      authorization_servers: [as.issuer],
      scopes_supported: ['mcp:read', 'mcp:write'],
      bearer_methods_supported: ['header'],
    });
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${server.prmUrl}"`);
    const forged = await fetch(server.url, {
      method: 'POST',
      headers: { authorization: 'Bearer not-a-jwt' },
    });
    expect(forged.status).toBe(401);
    expect(forged.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('signs two people in through the SDK: each token reaches the server as its own person', async () => {
    const before = { ...as.counts.token };
    const registrations = as.counts.registrations;
    const alice = await signIn('alice');
    const bob = await signIn('bob');
    expect(as.counts.token.authorization_code).toBe(before.authorization_code + 2);
    expect(as.counts.registrations).toBe(registrations + 2);

    const aliceSees = await whoami(server.url, alice);
    const bobSees = await whoami(server.url, bob);
    expect(aliceSees.sub).toBe('alice');
    expect(bobSees.sub).toBe('bob');
    expect(aliceSees.scope.split(' ').sort()).toEqual(['mcp:read', 'mcp:write']);
    expect(decodeJwt(alice.saved?.access_token ?? '').aud).toBe(server.url);
    const calls = server.seen.filter((entry) => entry.tool === 'whoami');
    expect(calls.at(-2)).toEqual({ sub: 'alice', token: alice.saved?.access_token, tool: 'whoami' });
    expect(calls.at(-1)).toEqual({ sub: 'bob', token: bob.saved?.access_token, tool: 'whoami' });
  });

  it('refreshes an expired-looking token with a rotated refresh token; the old one is refused', async () => {
    const carol = await signIn('carol');
    const first = carol.saved as OAuthTokens;
    expect(first.refresh_token).toBeTruthy();
    carol.saved = { ...first, expires_in: 0 };
    const refreshes = as.counts.token.refresh_token;

    expect(await auth(carol, { serverUrl: server.url })).toBe('AUTHORIZED');
    expect(as.counts.token.refresh_token).toBe(refreshes + 1);
    expect(carol.saved?.refresh_token).toBeTruthy();
    expect(carol.saved?.refresh_token).not.toBe(first.refresh_token);
    expect(carol.saved?.access_token).not.toBe(first.access_token);
    expect((await whoami(server.url, carol)).sub).toBe('carol');

    // Rotation: the used refresh token is spent, and replaying it withdraws the whole grant (the SDK
    // drops the tokens and starts a new authorization).
    const rotated = carol.saved as OAuthTokens;
    carol.saved = first;
    expect(await auth(carol, { serverUrl: server.url })).toBe('REDIRECT');
    expect(as.counts.token.refresh_token).toBe(refreshes + 2);
    carol.saved = rotated;
    expect(await auth(carol, { serverUrl: server.url })).toBe('REDIRECT');
  });

  it('revokes a refresh token (RFC 7009): it no longer refreshes', async () => {
    const dave = await signIn('dave');
    const { revocation_endpoint: revocationEndpoint } = await tokenEndpoints();
    const refreshToken = dave.saved?.refresh_token ?? '';
    const revocations = as.counts.revocations;
    const response = await fetch(revocationEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: refreshToken,
        token_type_hint: 'refresh_token',
        client_id: dave.information?.client_id ?? '',
      }),
    });
    expect(response.status).toBe(200);
    expect(as.counts.revocations).toBe(revocations + 1);
    expect(as.revokedTokens.at(-1)).toBe(refreshToken);
    // A JWT access token cannot be revoked at oidc-provider (it is self-contained): 400, not counted.
    const structured = await fetch(revocationEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: dave.saved?.access_token ?? '',
        client_id: dave.information?.client_id ?? '',
      }),
    });
    expect(structured.status).toBe(400);
    expect(await structured.json()).toMatchObject({ error: 'unsupported_token_type' });
    expect(as.counts.revocations).toBe(revocations + 1);
    const refreshes = as.counts.token.refresh_token;
    expect(await auth(dave, { serverUrl: server.url })).toBe('REDIRECT');
    expect(as.counts.token.refresh_token).toBe(refreshes + 1);
    expect(dave.saved).toBeUndefined();
  });

  it('answers needs_write without mcp:write with a 403 step-up challenge; the SDK steps up', async () => {
    const erin = await signIn('erin', 'mcp:read');
    const token = erin.saved?.access_token ?? '';
    expect(decodeJwt(token).scope).toBe('mcp:read');
    const response = await fetch(server.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'needs_write', arguments: {} },
      }),
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="mcp:read mcp:write", resource_metadata="${server.prmUrl}"`,
    );

    const again = await signIn('erin', 'mcp:read mcp:write');
    const client = new Client({ name: 'test-kit host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider: again }));
    const result = await client.callTool({ name: 'needs_write' });
    await client.close();
    expect(result.content).toEqual([{ type: 'text', text: 'written by erin' }]);
  });

  it('says no when the person denies, and can open the callback page', async () => {
    const provider = new MemoryClientProvider();
    await auth(provider, { serverUrl: server.url });
    const denied = new URL(await followAuthorization(String(provider.authorizationUrl), { deny: true }));
    expect(denied.searchParams.get('error')).toBe('access_denied');

    const callback = createServer((request, response) => {
      const code = new URL(request.url ?? '/', 'http://x').searchParams.get('code');
      response.writeHead(200, { 'content-type': 'text/plain' }).end(`got ${code ? 'a code' : 'nothing'}`);
    });
    const callbackUrl = `${await listenOnLoopback(callback)}/callback`;
    try {
      const withPage = new MemoryClientProvider(callbackUrl);
      await auth(withPage, { serverUrl: server.url });
      let requests = 0;
      const opened = await followAuthorization(String(withPage.authorizationUrl), {
        account: 'frank',
        open: true,
        fetch: (input, init) => {
          requests += 1;
          return fetch(input, init);
        },
      });
      expect(opened.url.startsWith(`${callbackUrl}?code=`)).toBe(true);
      expect(opened).toMatchObject({ status: 200, body: 'got a code' });
      expect(requests).toBeGreaterThan(2);
    } finally {
      callback.closeAllConnections();
      callback.close();
    }
  });

  it('signs in through a pre-registered confidential client (client_secret_post), no registration', async () => {
    const provider = new MemoryClientProvider();
    provider.information = {
      client_id: 'host-app',
      client_secret: 'host-secret',
      redirect_uris: [redirectUrl],
      token_endpoint_auth_method: 'client_secret_post',
    };
    const registrations = as.counts.registrations;
    expect(await auth(provider, { serverUrl: server.url })).toBe('REDIRECT');
    const code = new URL(
      await followAuthorization(String(provider.authorizationUrl), { account: 'grace' }),
    ).searchParams.get('code');
    expect(await auth(provider, { serverUrl: server.url, authorizationCode: code ?? '' })).toBe('AUTHORIZED');
    expect(as.counts.registrations).toBe(registrations);
    expect(decodeJwt(provider.saved?.access_token ?? '')).toMatchObject({
      sub: 'grace',
      client_id: 'host-app',
    });
    expect((await whoami(server.url, provider)).sub).toBe('grace');
  });

  it('gives a pre-registered confidential client a token by client_credentials', async () => {
    const { token_endpoint: tokenEndpoint } = await tokenEndpoints();
    const before = as.counts.token.client_credentials;
    const response = await fetch(tokenEndpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from('workspace-bot:workspace-secret').toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        resource: server.url,
        scope: 'mcp:read',
      }),
    });
    const body = (await response.json()) as { access_token?: string };
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(as.counts.token.client_credentials).toBe(before + 1);
    const client = new Client({ name: 'workspace', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { authorization: `Bearer ${body.access_token}` } },
      }),
    );
    const result = await client.callTool({ name: 'whoami' });
    await client.close();
    expect(result.structuredContent).toMatchObject({ sub: 'workspace-bot', scope: 'mcp:read' });
  });
});

describe('per-server options', () => {
  it('challengeScope adds scope to the 401 challenge; deny says no to everyone', async () => {
    const as = await startOAuthServer({ deny: true });
    const server = await startProtectedMcpServer({ issuer: as.issuer, challengeScope: 'mcp:read' });
    as.resources.push(server.url);
    try {
      const response = await fetch(server.url, { method: 'POST' });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(
        `Bearer scope="mcp:read", resource_metadata="${server.prmUrl}"`,
      );
      const provider = new MemoryClientProvider();
      expect(await auth(provider, { serverUrl: server.url })).toBe('REDIRECT');
      const back = new URL(
        await followAuthorization(String(provider.authorizationUrl), { account: 'heidi' }),
      );
      expect(back.searchParams.get('error')).toBe('access_denied');
    } finally {
      await server.close();
      await as.close();
    }
  });
});
