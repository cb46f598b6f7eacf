import { rmSync } from 'node:fs';
import { openStore, type Store } from '@ai-assistant/store';
import { embeddedStoreFolder, startStatelessServer } from '@ai-assistant/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { People } from '../src/people.js';
import { managerPool, remoteServer } from './helpers.js';

// Two servers whose `mcp__<server>__<tool>` read alike: the operator's `ops` with `_notify` and a
// workspace's `ops_` with `notify`. Real loopback MCP servers, a real store, People as the apps use it.
describe('tool names of servers whose names read alike', () => {
  const pool = managerPool();
  const admin = { workspace: 'T1', user: 'U_ADMIN' };
  const alice = { workspace: 'T1', user: 'U_ALICE' };
  let dataDir: string;
  let store: Store;
  const servers: Array<{ url: string; close(): void }> = [];
  const ran: string[] = [];

  /** A loopback MCP server with one tool that records and says who ran. */
  const serverWith = async (tool: string, who: string) => {
    const server = await startStatelessServer((mcp) => {
      mcp.registerTool(
        tool,
        { description: `${who}: notify`, annotations: { readOnlyHint: true } },
        async () => {
          ran.push(who);
          return { content: [{ type: 'text', text: `notified by ${who}` }] };
        },
      );
    });
    servers.push(server);
    return server.url;
  };

  beforeAll(async () => {
    dataDir = embeddedStoreFolder('tool-name-clashes-');
    store = await openStore({ dataDir, env: {} });
  }, 60_000);
  afterEach(() => pool.closeAll());
  afterAll(async () => {
    for (const server of servers) server.close();
    await store?.close();
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
  });

  it('#43.20 the operator’s ops/_notify and a workspace’s ops_/notify get distinct names, and each runs its own', async () => {
    const operator = await serverWith('_notify', 'operator');
    const workspace = await serverWith('notify', 'workspace');
    const manager = await pool.connect([remoteServer('ops', 'http', operator)]);
    const people = new People(manager, store, { workspaceServersAllow: '127.0.0.1' });
    const before = (await people.viewFor(alice))?.listTools().map((tool) => tool.name) ?? [];
    expect(before).toEqual(['mcp__ops___notify']);

    await people.addServer(admin, { name: 'ops_', kind: 'mcp', url: workspace, auth: 'none' });
    const view = await people.viewFor(alice);
    const names = view?.listTools().map((tool) => tool.name) ?? [];
    expect(names).toHaveLength(2);
    expect(new Set(names).size).toBe(2);
    // The operator's name did not change when the workspace's server came.
    expect(names).toContain('mcp__ops___notify');
    const theirs = names.find((name) => name !== 'mcp__ops___notify') as string;
    expect(theirs).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(view?.resolveTool('mcp__ops___notify')).toMatchObject({ server: 'ops', tool: '_notify' });
    expect(view?.resolveTool(theirs)).toMatchObject({ server: 'ops_', tool: 'notify' });

    expect((await view?.callTool('mcp__ops___notify', {}))?.text).toBe('notified by operator');
    expect((await view?.callTool(theirs, {}))?.text).toBe('notified by workspace');
    expect(ran).toEqual(['operator', 'workspace']);
    await people.removeServer(admin, 'ops_');
  }, 30_000);

  it('#43.20 a workspace’s server named like an operator’s server that came later: the operator’s runs', async () => {
    const before = await serverWith('notify', 'workspace');
    const first = await pool.connect([]);
    const people = new People(first, store, { workspaceServersAllow: '127.0.0.1' });
    await people.addServer(admin, { name: 'crm', kind: 'mcp', url: before, auth: 'none' });
    expect((await (await people.viewFor(alice))?.callTool('mcp__crm__notify', {}))?.text).toBe(
      'notified by workspace',
    );
    // The operator adds a server of the same name to the catalog and restarts.
    const later = await pool.connect([remoteServer('crm', 'http', await serverWith('notify', 'operator'))]);
    const restarted = new People(later, store, { workspaceServersAllow: '127.0.0.1' });
    const view = await restarted.viewFor(alice);
    expect(view?.listTools().map((tool) => tool.name)).toEqual(['mcp__crm__notify']);
    expect((await view?.callTool('mcp__crm__notify', {}))?.text).toBe('notified by operator');
    await restarted.removeServer(admin, 'crm');
  }, 30_000);
});
