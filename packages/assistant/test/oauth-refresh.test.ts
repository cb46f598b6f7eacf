import { rmSync } from 'node:fs';
import { McpClientManager, type OAuthStore, oauthStoreOver } from '@ai-assistant/host-core';
import { parseGrant } from '@ai-assistant/host-core/internal';
import { openStore, type Store } from '@ai-assistant/store';
import { storeDatabase } from '@ai-assistant/store/testing';
import {
  type AuthorizationServer,
  clock,
  embeddedStoreFolder,
  followAuthorization,
  type ProtectedServer,
  startAuthorizationServer,
  startFakeAuth,
  startProtectedServer,
} from '@ai-assistant/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { People } from '../src/people.js';

// A person's OAuth connection through People meets a 401: one refresh at the grant's own authorization
// server across replicas (host-core's OAuth client, reached as the apps reach it). The client alone is
// tested in host-core's oauth-refresh.test.ts.

const redirectUrl = 'http://127.0.0.1:9/oauth/callback';
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const close of closers.splice(0).reverse()) await close();
});

let dataDir: string;
let store: Store;
beforeAll(async () => {
  dataDir = embeddedStoreFolder('oauth-refresh-');
  store = await openStore({ dataDir, env: {} });
}, 60_000);
afterAll(async () => {
  await store?.close();
  rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
});

/** The store's OAuth part, as the apps build it: grants are credentials, claims are event claims. */
const realOAuthStore = (): OAuthStore => oauthStoreOver(store.credentials, store.oauth);

/** Refresh claims still in the store. */
const refreshClaims = async () =>
  (
    await storeDatabase(store)
      .selectFrom('event_claims')
      .select('event_id')
      .where('event_id', 'like', 'oauth-refresh:%')
      .execute()
  ).length;

describe('a person’s connection meets a 401 (oidc-provider and a protected MCP server)', () => {
  /**
   * A real authorization server, a protected MCP server, and `replicas` Peoples over one store (each
   * its own manager and OAuth service), on one clock. Connects `person` through the first.
   */
  async function start(person: { workspace: string; user: string }, replicas = 1) {
    const as: AuthorizationServer = await startAuthorizationServer({ accessTokenTtlSeconds: 600 });
    closers.push(() => as.close());
    const server: ProtectedServer = await startProtectedServer(as.issuer);
    closers.push(() => server.close());
    as.resources.push(server.url);
    const time = clock();
    const peoples: People[] = [];
    for (let index = 0; index < replicas; index++) {
      const manager = new McpClientManager({
        now: time.now,
        oauth: { store: realOAuthStore(), redirectUrl },
      });
      await manager.connect([
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
      ]);
      const people = new People(manager, store);
      closers.push(() => people.close());
      peoples.push(people);
    }
    const first = peoples[0] as People;
    const { url } = await first.beginConnect(person, 'tracker');
    await first.completeConnect(await followAuthorization(url, { account: person.user }));
    const whoami = async (people: People) =>
      (await (await people.viewFor(person))?.callTool('mcp__tracker__whoami', {}))?.text;
    const stored = async () =>
      parseGrant((await store.credentials.of(person.workspace, person.user)).secrets.tracker);
    return { as, server, time, peoples, whoami, stored };
  }

  it('#43.1 a 401 naming another authorization server changes nothing: the refresh is at the grant’s own, which keeps its issuer', async () => {
    const alice = { workspace: 'T43', user: 'alice' };
    const { as, server, time, peoples, whoami, stored } = await start(alice);
    const people = peoples[0] as People;
    expect(await whoami(people)).toBe('you are alice');
    // One normal refresh first.
    time.advance(600_000);
    expect(await whoami(people)).toBe('you are alice');
    expect(as.counts.token.refresh_token).toBe(1);

    // Then the server names another authorization server (plain http, another issuer) in its 401s,
    // one whose metadata claims the honest server as its resource, and refuses the current token.
    const other = await startFakeAuth({ host: '127.0.0.2', resource: server.url });
    closers.push(other.close);
    server.challengeWith(`${other.base}/.well-known/oauth-protected-resource/mcp`);
    const before = await stored();
    server.refuseToken(before?.tokens.access_token ?? '');
    const warn = vi.spyOn(console, 'warn');

    expect(await whoami(people)).toBe('you are alice');
    const refreshToken = before?.tokens.refresh_token ?? '';
    expect(refreshToken).not.toBe('');
    expect(other.received.filter((request) => request.includes(refreshToken))).toEqual([]);
    expect(other.received).toEqual([]);
    const after = await stored();
    expect(after?.authorizationServer).toBe(before?.authorizationServer);
    expect(after?.tokens.issuer).toBe(as.issuer);
    expect(after?.tokens.access_token).not.toBe(before?.tokens.access_token);
    expect(as.counts.token.refresh_token).toBe(2);
    expect(warn.mock.calls.map((call) => String(call[0]))).not.toContainEqual(
      expect.stringMatching(/\[mcp-sdk\]/),
    );
  }, 60_000);

  it('#43.4 two replicas, a token refused before its expiry: one refresh, and both replicas recover', async () => {
    const bob = { workspace: 'T43', user: 'bob' };
    const { as, server, peoples, whoami, stored } = await start(bob, 2);
    const [first, second] = peoples as [People, People];
    // Both replicas have opened their connection with the same token.
    expect(await whoami(first)).toBe('you are bob');
    expect(await whoami(second)).toBe('you are bob');
    const refused = (await stored())?.tokens.access_token ?? '';
    server.refuseToken(refused);

    const answers = await Promise.all([first, second, first, second, first, second].map(whoami));
    expect(answers).toEqual(Array(6).fill('you are bob'));
    // One refresh for the one refusal; no refresh token presented twice (oidc-provider would revoke the grant).
    expect(as.refreshTokensPresented).toHaveLength(1);
    // Each replica, with a fresh view, keeps working on the refreshed grant.
    expect(await whoami(first)).toBe('you are bob');
    expect(await whoami(second)).toBe('you are bob');
    expect(as.refreshTokensPresented).toHaveLength(1);
    expect((await stored())?.tokens.access_token).not.toBe(refused);
    expect(await refreshClaims()).toBe(0);
  }, 60_000);

  it('a server that refuses every token of the person: one refresh, then they are asked to connect again', async () => {
    const dave = { workspace: 'T43', user: 'dave' };
    const { as, server, time, peoples, whoami } = await start(dave);
    const people = peoples[0] as People;
    expect(await whoami(people)).toBe('you are dave');
    server.refuse('dave');
    for (let call = 0; call < 3; call++)
      await expect(whoami(people)).rejects.toMatchObject({ code: 'MISSING_CREDENTIALS', server: 'tracker' });
    expect(as.refreshTokensPresented).toHaveLength(1);
    // A minute later a refusal is worth one more refresh (the server may have recovered).
    time.advance(60_000);
    await expect(whoami(people)).rejects.toMatchObject({ code: 'MISSING_CREDENTIALS' });
    expect(as.refreshTokensPresented).toHaveLength(2);
  }, 60_000);

  it('#43.5 a refresh during an outage of the authorization server fails the call, retryably; the person stays connected', async () => {
    const carol = { workspace: 'T43', user: 'carol' };
    const { as, time, peoples, whoami, stored } = await start(carol);
    const people = peoples[0] as People;
    expect(await whoami(people)).toBe('you are carol');
    const connected = await stored();
    for (const outage of ['unavailable', 'drop'] as const) {
      time.advance(600_000);
      as.outage(outage);
      const view = await people.viewFor(carol);
      await expect(view?.callTool('mcp__tracker__whoami', {})).rejects.toMatchObject({
        code: 'TOOL_EXECUTION_FAILED',
        message: expect.stringMatching(/try again/),
      });
      expect((await stored())?.id).toBe(connected?.id);
      as.outage(undefined);
      expect(await whoami(people)).toBe('you are carol');
    }
    expect((await people.servers(carol)).find((entry) => entry.name === 'tracker')).toMatchObject({
      connected: true,
    });
  }, 60_000);
});
