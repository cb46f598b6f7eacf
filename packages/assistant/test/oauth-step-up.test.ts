import { AuthorizationError, McpClientManager, oauthStoreOver } from '@ai-assistant/host-core';
import { authorize, type FakeAuthOptions, startFakeAuth } from '@ai-assistant/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { People } from '../src/people.js';
import { memoryPeopleStore } from './helpers.js';

const person = { workspace: 'T1', user: 'U1' };
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** People over a manager with one OAuth server (the fake), as the apps set them up. */
async function setUp(fake: FakeAuthOptions) {
  const auth = await startFakeAuth(fake);
  const store = memoryPeopleStore();
  const manager = new McpClientManager({
    connectTimeoutMs: 5000,
    oauth: { store: oauthStoreOver(store.credentials), redirectUrl: 'http://127.0.0.1:9/oauth/callback' },
  });
  await manager.connect([
    {
      name: 'tracker',
      transport: 'http',
      url: auth.url,
      headers: {},
      timeoutMs: 5000,
      disabled: false,
      oauth: { grant: 'authorization_code' },
      personalCredential: true,
      connection: 'per_user',
    },
  ]);
  const people = new People(manager, store);
  closers.push(async () => {
    await people.close();
    await auth.close();
  });
  return { auth, people };
}

/**
 * A person who connects again each time the server's tools are not there (as the bot then offers
 * Connect again), until the host refuses to start a sign-in or the tool answers; at most 10 times.
 */
async function persevere(people: People): Promise<{ answered?: string; refused?: AuthorizationError }> {
  for (let attempt = 0; attempt < 10; attempt++) {
    let url: string;
    try {
      ({ url } = await people.beginConnect(person, 'tracker'));
    } catch (error) {
      if (error instanceof AuthorizationError) return { refused: error };
      throw error;
    }
    await people.completeConnect(await authorize(url));
    const view = await people.viewFor(person);
    if (view?.listTools().some((tool) => tool.name === 'mcp__tracker__whoami'))
      return { answered: (await view.callTool('mcp__tracker__whoami', {})).text };
  }
  return {};
}

describe('#43.14 step-up (403 insufficient_scope): a limit that holds, and the scopes already granted kept', () => {
  it('#43.14 a server asking for a new scope at every connect is stopped after 2 step-ups (3 authorizations)', async () => {
    const { auth, people } = await setUp({
      challengeScope: 'mcp:read',
      // Always a scope the token does not have yet.
      mcp: { demand: (granted) => `mcp:step${granted.length}` },
    });
    const { refused, answered } = await persevere(people);
    expect(answered).toBeUndefined();
    expect(auth.authorizations).toEqual(['mcp:read', 'mcp:read mcp:step1', 'mcp:read mcp:step1 mcp:step2']);
    expect(refused?.step).toBe('scope');
    expect(refused?.message).toMatch(
      /connecting "tracker" failed at the scope: the server asked for more access 3 times in a row \(now "mcp:read mcp:step1 mcp:step2 mcp:step3"\); stopped after 2 tries/,
    );
  }, 30_000);

  it('#43.14 a 403 naming a scope the token already has is not answered with another sign-in', async () => {
    const { auth, people } = await setUp({
      challengeScope: 'mcp:admin',
      mcp: { demand: () => 'mcp:admin' },
    });
    const { refused } = await persevere(people);
    expect(auth.authorizations).toEqual(['mcp:admin']);
    expect(refused?.step).toBe('scope');
    expect(refused?.message).toMatch(
      /the server refused the token for lacking "mcp:admin", which it already has: signing in again would not change that; ask the server's administrator/,
    );
  }, 30_000);

  it('#43.14 a step-up asks for the scopes granted before and the new one together', async () => {
    const { auth, people } = await setUp({
      challengeScope: 'mcp:read',
      // Every request needs mcp:read; the tools need mcp:write too.
      mcp: {
        demand: (granted) =>
          granted.includes('mcp:read') && granted.includes('mcp:write') ? undefined : 'mcp:write',
      },
    });
    const { answered } = await persevere(people);
    expect(answered).toBe('hello');
    expect(auth.authorizations).toEqual(['mcp:read', 'mcp:read mcp:write']);
  }, 30_000);
});
