// The authorization server's own process (see authorization-server.ts): oidc-provider supports Node.js
// 22 LTS and later, and warns on older runtimes, so it runs under a Node it supports. It asks its parent
// what the test may change at any moment (the resources, an outage) and reports what it was asked
// (token grants, registrations, revocations, refresh tokens) before each answer leaves, so a test reads
// its counts as soon as a request returns.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import type Provider from 'oidc-provider';
import type { Adapter, AdapterPayload, Configuration } from 'oidc-provider';
import type { AuthorizationServerOptions } from './authorization-server.js';

/** What the process reports of one request. */
export type ServerEvent =
  | { kind: 'token'; grant: string }
  | { kind: 'registration' }
  | { kind: 'revocation' }
  | { kind: 'refresh-token'; token: string };

/** Messages from the process to its parent. */
export type ChildMessage =
  | { type: 'ready'; issuer: string }
  | { type: 'ask'; id: number; about: 'resources' | 'outage' }
  | { type: 'record'; id: number; events: ServerEvent[] };

/** Messages from the parent to the process. */
export type ParentMessage =
  | { type: 'start'; options: AuthorizationServerOptions }
  | { type: 'answer'; id: number; value: unknown };

const pending = new Map<number, (value: unknown) => void>();
let nextId = 0;
const send = (message: ChildMessage) => process.send?.(message);

/** Asks the parent (and waits for its answer). */
function ask(about: 'resources' | 'outage'): Promise<unknown> {
  const id = ++nextId;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    send({ type: 'ask', id, about });
  });
}

/** Reports events to the parent and waits until it has them. */
function record(events: ServerEvent[]): Promise<unknown> {
  const id = ++nextId;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    send({ type: 'record', id, events });
  });
}

/**
 * oidc-provider's storage, in this process's memory (what a test's authorization server needs), given
 * explicitly: without an adapter, oidc-provider uses its development one and warns.
 */
class MemoryAdapter implements Adapter {
  private static readonly entries = new Map<string, { payload: AdapterPayload; expiresAt?: number }>();
  private static readonly grants = new Map<string, Set<string>>();

  constructor(private readonly model: string) {}

  private key(id: string) {
    return `${this.model}:${id}`;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const key = this.key(id);
    MemoryAdapter.entries.set(key, {
      payload,
      ...(expiresIn ? { expiresAt: Date.now() + expiresIn * 1000 } : {}),
    });
    if (payload.grantId) {
      const keys = MemoryAdapter.grants.get(payload.grantId) ?? new Set<string>();
      MemoryAdapter.grants.set(payload.grantId, keys.add(key));
    }
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    return this.live(this.key(id));
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    for (const [key, entry] of MemoryAdapter.entries)
      if (key.startsWith(`${this.model}:`) && entry.payload.uid === uid) return this.live(key);
    return undefined;
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    for (const [key, entry] of MemoryAdapter.entries)
      if (key.startsWith(`${this.model}:`) && entry.payload.userCode === userCode) return this.live(key);
    return undefined;
  }

  async consume(id: string): Promise<void> {
    const entry = MemoryAdapter.entries.get(this.key(id));
    if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000);
  }

  async destroy(id: string): Promise<void> {
    MemoryAdapter.entries.delete(this.key(id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    for (const key of MemoryAdapter.grants.get(grantId) ?? []) MemoryAdapter.entries.delete(key);
    MemoryAdapter.grants.delete(grantId);
  }

  private live(key: string): AdapterPayload | undefined {
    const entry = MemoryAdapter.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt !== undefined && entry.expiresAt <= Date.now()) {
      MemoryAdapter.entries.delete(key);
      return undefined;
    }
    return entry.payload;
  }
}

async function serve(options: AuthorizationServerOptions): Promise<void> {
  const scopes = options.scopes ?? ['mcp:read', 'mcp:write'];
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: 'test-key' };
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const resources = async () => (await ask('resources')) as string[];

  const { default: OidcProvider } = await import('oidc-provider');
  const provider = new OidcProvider(issuer, {
    adapter: MemoryAdapter,
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
        defaultResource: async () => (await resources())[0] as string,
        useGrantedResource: () => true,
        getResourceServerInfo: async (_context, resource) => {
          if (!(await resources()).includes(resource)) throw new Error(`unknown resource ${resource}`);
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
  /** What the request being answered did, reported before its answer leaves. */
  const eventsOf = (context: { state: Record<string, unknown> }): ServerEvent[] => {
    if (!context.state.testEvents) context.state.testEvents = [];
    return context.state.testEvents as ServerEvent[];
  };
  provider.on('grant.success', (context) => {
    const grant = String(
      (context.oidc.params as { grant_type?: unknown } | undefined)?.grant_type ?? 'unknown',
    );
    eventsOf(context).push({ kind: 'token', grant });
  });
  provider.on('registration_create.success', (context) => {
    eventsOf(context).push({ kind: 'registration' });
  });
  provider.use(async (context, next) => {
    if (context.path === '/token') {
      const outage = await ask('outage');
      if (outage === 'drop') {
        context.req.socket.destroy();
        return;
      }
      if (outage === 'unavailable') {
        context.status = 503;
        context.body = 'Service Unavailable';
        return;
      }
    }
    await next();
    const params = context.oidc?.params as { grant_type?: unknown; refresh_token?: unknown } | undefined;
    if (
      context.oidc?.route === 'token' &&
      params?.grant_type === 'refresh_token' &&
      typeof params.refresh_token === 'string'
    )
      eventsOf(context).push({ kind: 'refresh-token', token: params.refresh_token });
    if (context.oidc?.route === 'revocation' && context.status === 200)
      eventsOf(context).push({ kind: 'revocation' });
    const events = eventsOf(context);
    if (events.length > 0) await record(events);
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
  send({ type: 'ready', issuer });
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

process.on('message', (message: ParentMessage) => {
  if (message.type === 'start')
    serve(message.options).catch((error: unknown) => {
      process.stderr.write(`the authorization server did not start: ${String(error)}\n`);
      process.exit(1);
    });
  else if (message.type === 'answer') {
    pending.get(message.id)?.(message.value);
    pending.delete(message.id);
  }
});
// The test that started it is gone (closed it, or died): so is the server.
process.on('disconnect', () => process.exit(0));
