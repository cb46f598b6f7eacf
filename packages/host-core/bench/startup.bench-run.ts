import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '@ai-assistant/store';
import { catalogServerPath } from '@ai-assistant/test-kit';
import { it } from 'vitest';
import type { StdioServerConfig } from '../src/config/mcp-config.js';
import { printTable, verdict } from './table.js';

// Start-up with a real team's catalog: 25 stdio servers, each a real MCP server process (the SDK's
// Server) serving one recorded catalog, from the start until every tool is listed (cold, and after a
// restart with the tool lists kept in a PGlite store), and the memory of the host and its children.

// The built package, as an app runs it (see client-manager.bench-run.ts).
const built = new URL('../dist/index.js', import.meta.url).href;
const internal = new URL('../dist/internal.js', import.meta.url).href;
const { McpClientManager } = (await import(built)) as typeof import('../src/mcp/client-manager.js');
const { descendantsOf } = (await import(internal)) as typeof import('../src/internal.js');

const folder = join(import.meta.dirname, 'fixtures', 'tool-catalog');
// The 25 servers of the catalog (the recording also holds `everything` and `sequential-thinking`).
const files = readdirSync(folder)
  .filter((file) => file.endsWith('.json') && !/^(everything|sequential-thinking)\.json$/.test(file))
  .sort();
const expectedTools = files.reduce(
  (sum, file) =>
    sum + (JSON.parse(readFileSync(join(folder, file), 'utf8')) as { tools: unknown[] }).tools.length,
  0,
);

function servers(extra: Partial<StdioServerConfig> = {}): StdioServerConfig[] {
  return files.map((file) => ({
    name: file.replace(/\.json$/, ''),
    transport: 'stdio',
    command: process.execPath,
    args: [catalogServerPath, join(folder, file)],
    env: {},
    cwd: folder,
    timeoutMs: 30_000,
    disabled: false,
    ...extra,
  }));
}

function rssMiB(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Run {
  /** From `new McpClientManager` to every tool of the 25 servers listed. */
  listedMs: number;
  /** To every server connected (or, on first use, stopped until used). */
  settledMs: number;
  /** Attempts that ran out of time or failed. */
  failedAttempts: number;
  hostMiB: number;
  childrenMiB: number;
  children: number;
}

async function measure(options: Record<string, unknown>, entries: StdioServerConfig[]): Promise<Run> {
  let failedAttempts = 0;
  // Counted from the log, which every version of the manager writes.
  const failed = /^MCP server (failed to start|slow to start)/;
  const count = (_fields: unknown, message: string) => {
    if (failed.test(message)) failedAttempts++;
  };
  const logger = { debug: () => {}, info: () => {}, warn: count, error: count };
  const began = performance.now();
  const manager = new McpClientManager({ ...options, logger });
  const connecting = manager.connect(entries);
  // Polled: a benchmark, not a test; the poll's 10 ms is below what is measured.
  while (manager.listTools().length < expectedTools && performance.now() - began < 600_000) await pause(10);
  const listedMs = performance.now() - began;
  await connecting;
  await manager.started?.();
  const settled = () =>
    manager.status().every((server) => server.state === 'connected' || server.state === 'idle');
  while (!settled() && performance.now() - began < 600_000) await pause(10);
  const settledMs = performance.now() - began;
  const pids = await descendantsOf(process.pid);
  const childrenMiB = pids.reduce((sum, pid) => sum + rssMiB(pid), 0);
  const run = {
    listedMs,
    settledMs,
    failedAttempts,
    hostMiB: rssMiB(process.pid),
    childrenMiB,
    children: pids.length,
  };
  await manager.close();
  return run;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const memory = (run: Run) =>
  `${Math.round(run.hostMiB + run.childrenMiB)} MiB (host ${Math.round(run.hostMiB)}, ${run.children} children ${Math.round(run.childrenMiB)})`;

it('start-up with 25 stdio servers', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'startup-bench-'));
  const store = await openStore({ dataDir, env: {} });
  try {
    // Today's way: every server at once, no cache.
    const allAtOnce = await measure({ startConcurrency: files.length }, servers());
    // A stand-in for a slower machine (or heavier servers): a 2 s start-up limit, all at once and bounded.
    const tightAllAtOnce = await measure(
      { startConcurrency: files.length, connectTimeoutMs: 2000 },
      servers(),
    );
    const tightBounded = await measure({ connectTimeoutMs: 2000 }, servers());
    // Bounded (the default for this machine), filling the cache.
    const cold = await measure({ toolCatalogCache: store.toolCatalogs }, servers());
    // A restart: every list comes from the store; the servers connect behind it.
    const restart = await measure({ toolCatalogCache: store.toolCatalogs }, servers());
    // A restart where every entry starts on first use: no process until a call needs one.
    const lazy = await measure(
      { toolCatalogCache: store.toolCatalogs },
      servers({ start: 'on_first_use', idleStopMs: 600_000 }),
    );
    printTable(`Start-up: ${files.length} stdio servers, ${expectedTools} tools (recorded catalogs)`, [
      ['cold, all at once (no cache): every tool listed', seconds(allAtOnce.listedMs)],
      ['  failed attempts', String(allAtOnce.failedAttempts)],
      ['  resident memory, all connected', memory(allAtOnce)],
      ['cold, bounded (default concurrency): every tool listed', seconds(cold.listedMs)],
      ['  failed attempts', String(cold.failedAttempts)],
      ['  aim: whole catalog within 15 s', verdict(cold.listedMs <= 15_000)],
      ['2 s start-up limit, all at once: every tool listed', seconds(tightAllAtOnce.listedMs)],
      ['  failed attempts', String(tightAllAtOnce.failedAttempts)],
      ['2 s start-up limit, bounded: every tool listed', seconds(tightBounded.listedMs)],
      ['  failed attempts', String(tightBounded.failedAttempts)],
      ['restart, cache in PGlite: every tool listed', seconds(restart.listedMs)],
      ['  every server connected behind it', seconds(restart.settledMs)],
      ['  aim: at once (under 1 s)', verdict(restart.listedMs < 1000)],
      ['restart, every entry on first use: every tool listed', seconds(lazy.listedMs)],
      ['  resident memory (no server running)', memory(lazy)],
    ]);
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
  }
});
