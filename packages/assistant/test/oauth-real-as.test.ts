import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { McpClientManager, oauthStoreOver } from '@ai-assistant/host-core';
import {
  type AuthorizationServer,
  followAuthorization,
  type ProtectedServer,
  startAuthorizationServer,
  startProtectedServer,
} from '@ai-assistant/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { People } from '../src/people.js';
import { memoryPeopleStore } from './helpers.js';

describe('MCP authorization against a real authorization server (oidc-provider) and a protected MCP server', () => {
  let as: AuthorizationServer;
  let server: ProtectedServer;
  let manager: McpClientManager;
  let people: People;
  let now = Date.parse('2026-11-23T09:00:00Z');
  const store = memoryPeopleStore();
  const alice = { workspace: 'T1', user: 'UALICE' };
  const bob = { workspace: 'T1', user: 'UBOB' };

  beforeAll(async () => {
    as = await startAuthorizationServer({ accessTokenTtlSeconds: 600 });
    server = await startProtectedServer(as.issuer);
    as.resources.push(server.url);
    manager = new McpClientManager({
      now: () => new Date(now),
      oauth: { store: oauthStoreOver(store.credentials), redirectUrl: 'http://127.0.0.1:9/oauth/callback' },
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
    people = new People(manager, store);
  });

  afterAll(async () => {
    await people?.close();
    await server?.close();
    await as?.close();
  });

  /** A person connects through their browser: the link, sign-in and consent, the redirect back. */
  async function connect(person: typeof alice, account: string) {
    const { url } = await people.beginConnect(person, 'tracker');
    return people.completeConnect(await followAuthorization(url, { account }));
  }

  it('#48 oidc-provider runs on a runtime it supports: a program that starts it prints no warning', async () => {
    // A program using the test kit's authorization server as every OAuth test does: start, sign in, close.
    const program = `
      import { followAuthorization, startAuthorizationServer, startProtectedServer } from '@ai-assistant/test-kit';
      const as = await startAuthorizationServer({});
      const server = await startProtectedServer(as.issuer);
      as.resources.push(server.url);
      const metadata = await (await fetch(as.issuer + '/.well-known/oauth-authorization-server')).json();
      console.log('issuer ' + (metadata.issuer === as.issuer));
      await server.close();
      await as.close();
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', program], {
      cwd: resolve(import.meta.dirname, '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const code = await new Promise((done) => child.on('close', done));
    expect(output).toContain('issuer true');
    // Before, on Node 20: "oidc-provider WARNING: Unsupported runtime. Use Node.js v22.x LTS, …" and
    // "oidc-provider WARNING: a quick start development-only in-memory adapter is used, …".
    expect(output).not.toContain('oidc-provider WARNING');
    expect(code, output).toBe(0);
  }, 60_000);

  it('two people connect; each reaches the server with their own token, asserted server-side', async () => {
    await connect(alice, 'alice');
    await connect(bob, 'bob');
    expect(as.counts.registrations).toBe(1); // one registration per authorization server, shared
    const aliceView = await people.viewFor(alice);
    const bobView = await people.viewFor(bob);
    expect((await aliceView?.callTool('mcp__tracker__whoami', {}))?.text).toBe('you are alice');
    expect((await bobView?.callTool('mcp__tracker__whoami', {}))?.text).toBe('you are bob');
    expect(server.seen.map((entry) => entry.sub)).toEqual(['alice', 'bob']);
    expect((await people.servers(alice)).find((entry) => entry.name === 'tracker')).toMatchObject({
      connected: true,
      oauth: true,
    });
  }, 30_000);

  it('an expired token: 50 concurrent calls make exactly one refresh; the rotated refresh token is stored', async () => {
    const before = as.counts.token.refresh_token ?? 0;
    const storedBefore = JSON.parse(store.secrets.get('T1\u0000UALICE')?.tracker ?? '{}');
    now += 600_000;
    const view = await people.viewFor(alice);
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, () => view?.callTool('mcp__tracker__whoami', {})),
    );
    expect(new Set(outcomes.map((outcome) => outcome?.text))).toEqual(new Set(['you are alice']));
    expect((as.counts.token.refresh_token ?? 0) - before).toBe(1);
    const storedAfter = JSON.parse(store.secrets.get('T1\u0000UALICE')?.tracker ?? '{}');
    expect(storedAfter.tokens.refresh_token).not.toBe(storedBefore.tokens.refresh_token);
    expect(storedAfter.tokens.access_token).not.toBe(storedBefore.tokens.access_token);
  }, 30_000);

  it('a server that refuses the person’s tokens (401 after a refresh) makes the call MISSING_CREDENTIALS: they reconnect', async () => {
    server.refuse('alice');
    const view = await people.viewFor(alice);
    await expect(view?.callTool('mcp__tracker__whoami', {})).rejects.toMatchObject({
      code: 'MISSING_CREDENTIALS',
      server: 'tracker',
    });
  }, 30_000);

  it('disconnect revokes at the authorization server; the old token no longer works', async () => {
    const revoked = as.counts.revocations;
    const grant = JSON.parse(store.secrets.get('T1\u0000UBOB')?.tracker ?? '{}');
    expect(await people.disconnect(bob, 'tracker')).toBe(true);
    // The refresh token is revoked (oidc-provider's JWT access tokens cannot be: they expire).
    expect(as.counts.revocations - revoked).toBe(1);
    expect(store.secrets.get('T1\u0000UBOB')?.tracker).toBeUndefined();
    // The revoked refresh token is refused by the authorization server itself.
    const refresh = await fetch(`${as.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: grant.tokens.refresh_token,
        client_id: grant.client.client_id,
      }),
    });
    expect(refresh.status).toBe(400);
    const view = await people.viewFor(bob);
    expect(view?.listTools().some((tool) => tool.name === 'mcp__tracker__whoami')).toBe(false);
  }, 30_000);

  it('a person who says no at the authorization server is not connected, and is told which step failed', async () => {
    const { url } = await people.beginConnect(bob, 'tracker');
    const back = await followAuthorization(url, { account: 'bob', deny: true });
    await expect(people.completeConnect(back)).rejects.toThrow(
      /connecting "tracker" failed at the authorization: the authorization server answered access_denied/,
    );
    expect(store.secrets.get('T1\u0000UBOB')?.tracker).toBeUndefined();
  }, 30_000);
});
