import { rmSync } from 'node:fs';
import { openStore, type Store } from '@ai-assistant/store';
import { embeddedStoreFolder, startTokenServer, type TokenServer, tokenOf } from '@ai-assistant/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { People } from '../src/people.js';
import { managerPool, remoteServer } from './helpers.js';

// A person's own connection that fails when it opens (their token is refused at initialize): what the
// apps read of it. A real loopback server, a real store, People as the apps use it.
describe('a person’s own connection that fails when it opens', () => {
  const pool = managerPool();
  const alice = { workspace: 'T1', user: 'U_ALICE' };
  const bob = { workspace: 'T1', user: 'U_BOB' };
  let dataDir: string;
  let store: Store;
  let tickets: TokenServer;

  beforeAll(async () => {
    dataDir = embeddedStoreFolder('own-connections-');
    store = await openStore({ dataDir, env: {} });
    tickets = await startTokenServer({ requireToken: true });
  }, 60_000);
  afterEach(() => pool.closeAll());
  afterAll(async () => {
    tickets?.close();
    await store?.close();
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
  });

  it('#43.25 the view reports it as failed with the reason, and People.servers shows it failed', async () => {
    const manager = await pool.connect([
      remoteServer('tickets', 'http', tickets.url, {
        headers: { Authorization: 'Bearer ${token}' },
        connection: 'per_user',
        personalCredential: true,
      }),
    ]);
    const people = new People(manager, store);
    const revoked = tokenOf('alice');
    tickets.revoke(revoked);
    await people.connect(alice, 'tickets', revoked);
    await people.connect(bob, 'tickets', tokenOf('bob'));

    const view = await people.viewFor(alice);
    expect(view?.listTools()).toEqual([]);
    const unavailable = view?.unavailableServers() ?? [];
    expect(unavailable).toEqual([
      { server: 'tickets', restarting: false, reason: expect.stringMatching(/401/) },
    ]);
    expect(JSON.stringify(unavailable)).not.toContain(revoked);

    const listed = (await people.servers(alice)).find((server) => server.name === 'tickets');
    expect(listed).toMatchObject({ connected: true, personalCredential: true, state: 'failed' });
    expect(listed?.reason).toMatch(/401/);
    expect(JSON.stringify(listed)).not.toContain(revoked);

    // Bob's works; his listing says so, and Alice's failure is not his.
    const bobs = await people.viewFor(bob);
    expect(bobs?.listTools().map((tool) => tool.name)).toContain('mcp__tickets__whoami');
    expect(bobs?.unavailableServers()).toEqual([]);
    expect((await people.servers(bob)).find((server) => server.name === 'tickets')).toMatchObject({
      connected: true,
      state: 'connected',
      toolCount: 1,
    });
  }, 30_000);
});
