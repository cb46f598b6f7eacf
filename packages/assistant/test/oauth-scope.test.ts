import { rmSync } from 'node:fs';
import { oauthStoreOver, type ToolCallError } from '@ai-assistant/host-core';
import { openStore, type Store } from '@ai-assistant/store';
import {
  type AuthorizationServer,
  embeddedStoreFolder,
  followAuthorization,
  type ProtectedServer,
  recordingLogger,
  startAuthorizationServer,
  startProtectedServer,
} from '@ai-assistant/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { People } from '../src/people.js';
import { managerPool } from './helpers.js';

// A server that asks for more access (403 insufficient_scope, MCP authorization's scope challenge)
// for one tool: oidc-provider as the authorization server, a real store, People as the apps use it.
describe('a tool that needs more access than the person granted', () => {
  const pool = managerPool();
  const alice = { workspace: 'T1', user: 'U_ALICE' };
  let dataDir: string;
  let store: Store;
  let as: AuthorizationServer;
  let server: ProtectedServer;

  beforeAll(async () => {
    dataDir = embeddedStoreFolder('oauth-scope-');
    store = await openStore({ dataDir, env: {} });
    as = await startAuthorizationServer({ accessTokenTtlSeconds: 600 });
    // People sign in with mcp:read; the tool `write` needs mcp:write.
    server = await startProtectedServer(as.issuer, undefined, {
      challengeScope: 'mcp:read',
      toolScopes: { write: 'mcp:write' },
    });
    as.resources.push(server.url);
  }, 60_000);
  afterAll(async () => {
    await pool.closeAll();
    await server?.close();
    await as?.close();
    await store?.close();
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
  });

  /** People over a manager whose one server is the tracker, each person signing in with OAuth. */
  async function peopleOverTracker(logger = recordingLogger()) {
    const manager = await pool.connect(
      [
        {
          name: 'tracker',
          transport: 'http',
          url: server.url,
          headers: {},
          timeoutMs: 10_000,
          disabled: false,
          oauth: { grant: 'authorization_code' },
          personalCredential: true,
          connection: 'per_user',
        },
      ],
      {
        logger,
        oauth: {
          store: oauthStoreOver(store.credentials, store.oauth),
          redirectUrl: 'http://127.0.0.1:9/oauth/callback',
        },
      },
    );
    return new People(manager, store);
  }

  it('#43.15 a 403 insufficient_scope tells the model and the person that more permission is needed; Connect asks for it', async () => {
    const logger = recordingLogger();
    const people = await peopleOverTracker(logger);
    const first = new URL((await people.beginConnect(alice, 'tracker')).url);
    expect(first.searchParams.get('scope')?.split(' ')).not.toContain('mcp:write');
    await people.completeConnect(await followAuthorization(first.toString(), { account: 'alice' }));
    const refreshesBefore = as.counts.token.refresh_token ?? 0;

    const view = await people.viewFor(alice);
    expect((await view?.callTool('mcp__tracker__whoami', {}))?.text).toBe('you are alice');
    const error = (await view?.callTool('mcp__tracker__write', {}).then(
      () => undefined,
      (failure: unknown) => failure,
    )) as ToolCallError | undefined;
    // The model (and the app, by the code) reads: more permission, which scope, connect again to grant it.
    expect(error?.code).toBe('MISSING_CREDENTIALS');
    expect(error?.refused).toBe(403);
    expect(error?.message).toContain('needs more permission');
    expect(error?.message).toContain('mcp:write');
    expect(error?.message).not.toMatch(/expired|401/);
    // Nothing was refreshed for it, and no log line calls it a failed refresh.
    expect((as.counts.token.refresh_token ?? 0) - refreshesBefore).toBe(0);
    expect(logger.lines.filter((line) => /refresh/i.test(JSON.stringify(line)))).toEqual([]);
    // The person is still connected: what they granted stays theirs.
    expect((await people.servers(alice)).find((entry) => entry.name === 'tracker')?.connected).toBe(true);

    // Connect asks for the scope the server named.
    const again = new URL((await people.beginConnect(alice, 'tracker')).url);
    expect(again.searchParams.get('scope')?.split(' ')).toContain('mcp:write');
  }, 60_000);

  it('#48 the person signs in again with the scope the server named, and the tool runs (the registered client asked for less)', async () => {
    const bob = { workspace: 'T1', user: 'U_BOB' };
    const people = await peopleOverTracker();
    // The client registered at the first sign-in asked for mcp:read only (the challenge's scope).
    await people.completeConnect(
      await followAuthorization((await people.beginConnect(bob, 'tracker')).url, { account: 'bob' }),
    );
    const refused = await (await people.viewFor(bob))
      ?.callTool('mcp__tracker__write', {})
      .catch((failure: ToolCallError) => failure);
    expect((refused as ToolCallError).refused).toBe(403);
    // Before: the authorization server answered invalid_scope ("requested scope is not allowed").
    await people.completeConnect(
      await followAuthorization((await people.beginConnect(bob, 'tracker')).url, { account: 'bob' }),
    );
    expect((await (await people.viewFor(bob))?.callTool('mcp__tracker__write', {}))?.text).toBe(
      'write done for bob',
    );
  }, 60_000);
});
