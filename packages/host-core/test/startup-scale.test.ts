import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '@ai-assistant/store';
import { childProcesses, recordingLogger, seedEmbeddedStore } from '@ai-assistant/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseMcpConfig } from '../src/config/mcp-config.js';
import { McpClientManager } from '../src/mcp/client-manager.js';
import type { McpClientManagerOptions, ServerEvent } from '../src/mcp/manager-types.js';
import { startupLimits } from '../src/mcp/startup.js';
import { catalogKey } from '../src/mcp/tool-catalog-cache.js';
import { echoServer, nodeServer } from './helpers.js';

// Start-up that scales with the catalog: bounded parallelism, a start-up limit that grows on a slow
// machine, tool lists kept in the store (PGlite here), servers started on first use and stopped idle.

const managers: McpClientManager[] = [];
const folders: string[] = [];
let store: Store;

beforeAll(async () => {
  store = await openStore({ dataDir: seedEmbeddedStore(scratch()), env: {} });
});
afterAll(async () => {
  await store?.close();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.close()));
  expect(childProcesses()).toEqual([]);
});

function scratch(): string {
  const folder = mkdtempSync(join(tmpdir(), 'startup-scale-'));
  folders.push(folder);
  return folder;
}

/** A manager whose server events are kept, and can be waited for. */
function observed(options: McpClientManagerOptions = {}) {
  const events: ServerEvent[] = [];
  const waiting: Array<{ match: (event: ServerEvent) => boolean; resolve: (event: ServerEvent) => void }> =
    [];
  const manager = new McpClientManager({
    connectTimeoutMs: 20_000,
    ...options,
    onServerEvent: (event) => {
      events.push(event);
      options.onServerEvent?.(event);
      for (const waiter of [...waiting])
        if (waiter.match(event)) {
          waiting.splice(waiting.indexOf(waiter), 1);
          waiter.resolve(event);
        }
    },
  });
  managers.push(manager);
  /** The first event (already seen or to come) that `match` accepts. */
  const next = (match: (event: ServerEvent) => boolean) =>
    new Promise<ServerEvent>((resolve) => {
      const seen = events.find(match);
      if (seen) resolve(seen);
      else waiting.push({ match, resolve });
    });
  return { manager, events, next };
}

describe('#42 start-up that scales with the catalog', () => {
  it('#42 servers start at most N at a time: with a concurrency of 1 no two starts overlap', async () => {
    const { manager, events } = observed({ startConcurrency: 1 });
    await manager.connect([1, 2, 3].map((index) => nodeServer(`echo${index}`, echoServer)));
    await manager.started();
    expect(manager.status().map((server) => server.state)).toEqual(['connected', 'connected', 'connected']);
    let open = 0;
    let most = 0;
    for (const event of events) {
      if (event.type === 'starting') most = Math.max(most, ++open);
      if (event.type === 'connected' || event.type === 'start-timed-out' || event.type === 'start-failed')
        open--;
    }
    expect(events.filter((event) => event.type === 'starting')).toHaveLength(3);
    expect(most).toBe(1);
  }, 30_000);

  it('#42 a start that times out is retried with a longer limit, and the server slower than the first limit connects', async () => {
    const gate = join(scratch(), 'gate');
    const { manager, events } = observed({
      // The server answers only once the first attempt has timed out: it is slower than the first limit.
      onServerEvent: (event) => {
        if (event.type === 'start-timed-out') writeFileSync(gate, 'open');
      },
    });
    await manager.connect([
      nodeServer('slow', echoServer, ['--wait-for', gate], { startupTimeoutMs: 3000, restart: 'never' }),
    ]);
    await manager.started();
    expect(manager.status()[0]).toMatchObject({ state: 'connected' });
    // (A machine too busy to start it within 6 s would try 12 s next: only the first steps are pinned.)
    expect(
      events
        .filter((event) => event.type === 'starting' || event.type === 'start-timed-out')
        .map((event) => [event.type, 'limitMs' in event ? event.limitMs : undefined])
        .slice(0, 3),
    ).toEqual([
      ['starting', 3000],
      ['start-timed-out', 3000],
      ['starting', 6000],
    ]);
    // An admin's one-off Test (like a person's own connection, opened in a turn) has one attempt only.
    const test = await manager.testServer(
      nodeServer('never', echoServer, ['--wait-for', join(scratch(), 'shut')], { startupTimeoutMs: 300 }),
    );
    expect(test).toMatchObject({ ok: false, reason: expect.stringContaining('within 300 ms') });
    // The policy: doubling from the entry's limit, capped at six times it; then the supervisor's turn.
    expect(startupLimits(10_000)).toEqual([10_000, 20_000, 40_000, 60_000]);
    expect(startupLimits(300)).toEqual([300, 600, 1200, 1800]);
  }, 30_000);

  it('#42 a restart offers the cached catalog before the servers reconnect, and a call waits for its server', async () => {
    const gate = join(scratch(), 'gate');
    writeFileSync(gate, 'open');
    const entry = nodeServer('echo', echoServer, ['--wait-for', gate], { startupTimeoutMs: 15_000 });
    const first = observed({ toolCatalogCache: store.toolCatalogs });
    await first.manager.connect([entry]);
    await first.manager.started();
    expect(first.manager.status()[0]?.state).toBe('connected');
    await first.manager.close();

    // The restart: the server is slow to come back (its gate is shut).
    rmSync(gate);
    const second = observed({ toolCatalogCache: store.toolCatalogs });
    await second.manager.connect([entry]);
    expect(second.manager.status()[0]).toMatchObject({ state: 'connecting' });
    expect(second.manager.listTools().map((tool) => tool.name)).toContain('mcp__echo__echo');
    // Not unavailable: a call waits for it.
    expect(second.manager.unavailableServers()).toEqual([]);
    expect(second.events.some((event) => event.type === 'connected')).toBe(false);

    // A call to it waits, within its own deadline: a short one ends saying the server is still starting.
    await expect(
      second.manager.callTool('mcp__echo__echo', { message: 'too soon' }, { timeoutMs: 200 }),
    ).rejects.toThrow(/echo.*still starting/);
    const call = second.manager.callTool('mcp__echo__echo', { message: 'hello' });
    await second.next((event) => event.type === 'starting');
    writeFileSync(gate, 'open');
    expect((await call).text).toBe('echo: hello');
    expect(second.manager.status()[0]?.state).toBe('connected');

    // A tool the server adds later (tools/list_changed) is kept too: the next start lists it at once.
    await second.manager.callTool('mcp__echo__add_tool', {});
    const before = second.manager.listTools().length;
    await second.next((event) => event.type === 'kept' && event.tools > before);
    await second.manager.close();
    rmSync(gate);
    const third = observed({ toolCatalogCache: store.toolCatalogs });
    await third.manager.connect([entry]);
    expect(third.manager.listTools().map((tool) => tool.name)).toContain('mcp__echo__added');
  }, 60_000);

  it('#42 a server started on first use answers the first call and stops when idle', async () => {
    const [entry] = parseMcpConfig(
      JSON.stringify({
        mcpServers: {
          lazy: { command: process.execPath, args: [echoServer], start: 'on_first_use', idle_stop_ms: 300 },
        },
      }),
      'mcp_servers.json',
      {},
    );
    if (!entry) throw new Error('no entry');
    // No tools kept yet: it is started once to learn them, then stopped.
    const learning = observed({ toolCatalogCache: store.toolCatalogs });
    await learning.manager.connect([entry]);
    await learning.next((event) => event.type === 'stopped');
    expect(learning.manager.status()[0]).toMatchObject({ state: 'idle', toolCount: expect.any(Number) });
    expect(learning.manager.listTools().map((tool) => tool.name)).toContain('mcp__lazy__echo');
    expect(childProcesses()).toEqual([]);
    await learning.manager.close();

    // The next start spawns nothing: its tools come from the store.
    const { manager, events, next } = observed({ toolCatalogCache: store.toolCatalogs });
    await manager.connect([entry]);
    expect(manager.listTools().map((tool) => tool.name)).toContain('mcp__lazy__echo');
    expect(childProcesses()).toEqual([]);
    expect(events.some((event) => event.type === 'starting')).toBe(false);

    expect((await manager.callTool('mcp__lazy__echo', { message: 'first' })).text).toBe('echo: first');
    expect(childProcesses()).toHaveLength(1);
    const stopped = await next((event) => event.type === 'stopped');
    expect(stopped).toMatchObject({ server: 'lazy', why: 'idle' });
    expect(manager.status()[0]?.state).toBe('idle');
    expect(manager.unavailableServers()).toEqual([]);
    expect(childProcesses()).toEqual([]);
    // And it comes back for the next call.
    expect((await manager.callTool('mcp__lazy__echo', { message: 'again' })).text).toBe('echo: again');
  }, 60_000);

  it('#42 the warning about the catalog’s size counts every server, those still connecting with cached tools too', async () => {
    // A server that has not answered yet (its gate stays shut) whose 130 tools the store kept.
    const entry = nodeServer('big', echoServer, ['--wait-for', join(scratch(), 'shut')], {
      startupTimeoutMs: 60_000,
    });
    const tools = Array.from({ length: 130 }, (_, index) => ({
      name: `tool_${index}`,
      inputSchema: { type: 'object' },
    }));
    await store.toolCatalogs.save(catalogKey(entry) ?? '', tools);
    const logger = recordingLogger();
    const { manager } = observed({ toolCatalogCache: store.toolCatalogs, logger });
    await manager.connect([entry]);
    expect(manager.status()[0]).toMatchObject({ state: 'connecting', toolCount: 130 });
    const warning = logger.lines.find((line) => /more than OpenAI accepts/.test(line.message));
    expect(warning?.fields).toMatchObject({ tools: 130, limit: 128 });
  }, 30_000);
});
