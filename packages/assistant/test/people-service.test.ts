import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '@ai-assistant/store';
import { embeddedStoreFolder, recordingLogger } from '@ai-assistant/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { People } from '../src/people.js';
import { startPeople } from '../src/start-people.js';
import { echoServer, managerPool, nodeServer, personalEcho } from './helpers.js';

// People over a real store (PGlite) and real per-person server processes: each change closes the
// connections it makes stale at once, not at the pool's idle timeout.
describe('People: the one service both apps use', () => {
  const pool = managerPool();
  const alice = { workspace: 'T1', user: 'U_ALICE' };
  const bob = { workspace: 'T1', user: 'U_BOB' };
  const carol = { workspace: 'T2', user: 'U_CAROL' };
  let dataDir: string;
  let store: Store;

  beforeAll(async () => {
    dataDir = embeddedStoreFolder('people-store-');
    store = await openStore({ dataDir, env: {} });
  }, 60_000);
  afterEach(() => pool.closeAll());
  afterAll(async () => {
    await store?.close();
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
  });

  /** A People over a fresh manager: one per-person echo server and one shared. */
  const start = async () => {
    const manager = await pool.connect([...personalEcho(), nodeServer('echo', echoServer)], {
      // Idle connections would stay open for an hour: only the changes close them.
      personalPool: { idleMs: 3_600_000 },
    });
    return { manager, people: new People(manager, store, { connectHint: (server) => `/connect ${server}` }) };
  };

  /** Opens the person's own connection by giving them a view (their first turn). */
  const turn = async (people: People, person: typeof alice) => {
    const view = await people.viewFor(person);
    return view?.listTools().map((tool) => tool.name) ?? [];
  };

  it('host://settings: the app’s settings, the budgets that apply and the person’s servers, never a secret', async () => {
    const manager = await pool.connect([
      nodeServer('echo', echoServer, [], { env: { ECHO_TOKEN: 'secret-setting-0001' } }),
    ]);
    const people = new People(manager, store, {
      usageLimits: { tokensPerPersonDay: 5000 },
      appSettings: () => ({ model: 'gpt-test', toolRoundsPerAnswer: 10 }),
    });
    await store.workspaces.setLimits('T1', { tokensPerPersonDay: 800 });
    const view = await people.viewFor(alice);
    expect(view?.listResources().map((entry) => `${entry.server} ${entry.uri}`)).toContain(
      'host host://settings',
    );
    const read = await view?.readResource('host', 'host://settings');
    const settings = JSON.parse(read?.text ?? '{}');
    expect(settings).toMatchObject({
      model: 'gpt-test',
      toolRoundsPerAnswer: 10,
      budgets: { operator: { tokensPerPersonDay: 5000 }, workspace: { tokensPerPersonDay: 800 } },
      servers: [{ name: 'echo', transport: 'stdio', tools: expect.any(Number) }],
    });
    expect(settings.servers[0].tools).toBe(
      view?.listTools().filter((tool) => tool.name.startsWith('mcp__echo__')).length,
    );
    expect(read?.text).not.toContain('secret-setting-0001');
    // Without the app's settings, no such resource.
    const plain = await new People(manager, store).viewFor(alice);
    expect(plain?.listResources().some((entry) => entry.uri === 'host://settings')).toBe(false);
  });

  it('connect opens a view with the person’s own server; disconnect closes their connection at once', async () => {
    const { manager, people } = await start();
    expect(await turn(people, alice)).not.toContain('mcp__mine__echo');
    await people.connect(alice, 'mine', 'tok-alice-0001');
    await people.connect(bob, 'mine', 'tok-bob-0002');
    expect(await turn(people, alice)).toContain('mcp__mine__echo');
    await turn(people, bob);
    expect(manager.personalConnections()).toBe(2);
    expect((await people.servers(alice)).find((server) => server.name === 'mine')).toMatchObject({
      enabled: true,
      connected: true,
    });

    expect(await people.disconnect(alice, 'mine')).toBe(true);
    // Before: the connection (with the deleted secret) lived on until the 10-minute idle timeout.
    expect(manager.personalConnections()).toBe(1);
    expect(await turn(people, alice)).not.toContain('mcp__mine__echo');
    expect(await people.disconnect(alice, 'mine')).toBe(false);
  });

  it('a changed credential closes the old connection: the next turn opens one with the new secret', async () => {
    const { manager, people } = await start();
    await people.connect(alice, 'mine', 'tok-alice-0001');
    await turn(people, alice);
    expect(manager.personalConnections()).toBe(1);
    await people.connect(alice, 'mine', 'tok-alicenew-0003');
    expect(manager.personalConnections()).toBe(0);
    const view = await people.viewFor(alice);
    const outcome = await view?.callTool('mcp__mine__token_owner', {});
    expect(outcome?.text).toContain('owner=alicenew');
    expect(manager.personalConnections()).toBe(1);
  });

  it('an admin disabling a server closes the workspace’s connections to it; other workspaces keep theirs', async () => {
    const { manager, people } = await start();
    await people.connect(alice, 'mine', 'tok-alice-0001');
    await people.connect(carol, 'mine', 'tok-carol-0004');
    await turn(people, alice);
    await turn(people, carol);
    expect(manager.personalConnections()).toBe(2);
    await people.setEnabled('T1', 'mine', false, 'U_ADMIN');
    expect(manager.personalConnections()).toBe(1);
    expect(await turn(people, alice)).not.toContain('mcp__mine__echo');
    expect(await turn(people, carol)).toContain('mcp__mine__echo');
    await people.setEnabled('T1', 'mine', true, 'U_ADMIN');
  });

  it('an uninstalled workspace: every per-person connection of it closes at once', async () => {
    const { manager, people } = await start();
    await people.connect(alice, 'mine', 'tok-alice-0001');
    await people.connect(bob, 'mine', 'tok-bob-0002');
    await people.connect(carol, 'mine', 'tok-carol-0004');
    for (const person of [alice, bob, carol]) await turn(people, person);
    expect(manager.personalConnections()).toBe(3);
    people.forgetWorkspaces(['T1']);
    expect(manager.personalConnections()).toBe(1);
  });

  it('without MCP there is no view, and without a store nobody can connect', async () => {
    const off = new People(undefined, store);
    expect(off.mcpEnabled).toBe(false);
    expect(await off.viewFor(alice)).toBeUndefined();
    const { manager } = await start();
    const storeless = new People(manager, undefined);
    expect(storeless.personalServer('mine')).toMatchObject({ code: 'CONNECT_REFUSED', problem: 'no store' });
    expect(storeless.personalServer('echo')).toMatchObject({
      code: 'CONNECT_REFUSED',
      problem: 'not personal',
    });
    expect(storeless.personalServer('nowhere')).toMatchObject({
      code: 'CONNECT_REFUSED',
      problem: 'unknown server',
      message: 'nowhere cannot be connected: no server of that name is configured',
    });
    await expect(storeless.connect(alice, 'mine', 'tok-alice-0001')).rejects.toThrow(/no store/);
  });
});

describe('startPeople', () => {
  it('#48 oauth without a store says at start that MCP authorization is off, and why', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'start-people-'));
    const config = join(folder, 'mcp_servers.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { tracker: { type: 'http', url: 'http://127.0.0.1:9/mcp', oauth: true } },
      }),
    );
    const logger = recordingLogger();
    const people = await startPeople({
      env: { MCP_ENABLED: 'true', MCP_SERVERS_CONFIG: config },
      logger,
      oauth: { redirectUrl: 'http://127.0.0.1:9/callback' },
    });
    try {
      // Before: nothing said so until someone tried to connect.
      expect(logger.lines).toContainEqual(
        expect.objectContaining({
          level: 'warn',
          message: expect.stringContaining('MCP authorization (oauth) is off: it needs a store'),
        }),
      );
      expect(people.oauthReady).toBe(false);
      expect(people.personalServer('tracker')).toMatchObject({ problem: 'no store' });
    } finally {
      await people.close();
      rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
    }
  });
});
