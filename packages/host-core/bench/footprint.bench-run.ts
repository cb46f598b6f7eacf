import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { it } from 'vitest';
import { fixtures } from '../test/helpers.js';
import { percentile, printTable, verdict } from './table.js';

// Each measure runs in a fresh Node process, so module caches and heaps do not mix.
const root = join(import.meta.dirname, '..');
const echo = join(fixtures, 'echo-server.mjs');

function run(script: string): string {
  return execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
  }).trim();
}

const importTime = (specifier: string) =>
  Number(
    run(`const t = performance.now(); await import('${specifier}'); console.log(performance.now() - t);`),
  );

// RSS once 10 stdio servers are connected (after a full GC in both): the manager against bare SDK v2
// Clients, in one era (each side pinned to it).
const rssWithTen = (host: boolean, revision: '2025-11-25' | '2026-07-28') =>
  Number(
    run(
      host
        ? `import { McpClientManager } from './dist/index.js';
           const m = new McpClientManager();
           await m.connect(Array.from({ length: 10 }, (_, i) => ({ name: 'e' + i, transport: 'stdio', command: process.execPath, args: ['${echo}'], env: {}, cwd: '.', timeoutMs: 30000, disabled: false, protocolVersion: '${revision}' })));
           m.listTools(); globalThis.gc(); console.log(process.memoryUsage().rss / 1048576); await m.close();`
        : `import { Client } from '@modelcontextprotocol/client';
           import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
           const negotiation = '${revision}' === '2026-07-28' ? { mode: { pin: '2026-07-28' } } : { mode: 'legacy' };
           const clients = await Promise.all(Array.from({ length: 10 }, async () => {
             const c = new Client({ name: 'b', version: '0' }, { versionNegotiation: negotiation });
             await c.connect(new StdioClientTransport({ command: process.execPath, args: ['${echo}'], stderr: 'ignore' }));
             await c.listTools(); return c; }));
           globalThis.gc(); console.log(process.memoryUsage().rss / 1048576); await Promise.all(clients.map((c) => c.close()));`,
    ),
  );

it('host-core footprint beside the bare SDK', () => {
  // Fifteen of each, taking turns and each starting every other round: one slow spawn (this machine
  // is shared) moves a median of seven by more than the difference being measured.
  const runs = 15;
  const ours: number[] = [];
  const sdk: number[] = [];
  for (let index = 0; index < runs; index++) {
    if (index % 2 === 1) sdk.push(importTime('@modelcontextprotocol/client'));
    ours.push(importTime('./dist/index.js'));
    if (index % 2 === 0) sdk.push(importTime('@modelcontextprotocol/client'));
  }
  const rssByEra = (['2025-11-25', '2026-07-28'] as const).map((revision) => {
    const ours: number[] = [];
    const bare: number[] = [];
    for (let index = 0; index < 3; index++) {
      ours.push(rssWithTen(true, revision));
      bare.push(rssWithTen(false, revision));
    }
    return { revision, ours: percentile(ours, 0.5), bare: percentile(bare, 0.5) };
  });
  const importOurs = percentile(ours, 0.5);
  const importSdk = percentile(sdk, 0.5);
  printTable('@ai-assistant/host-core footprint (fresh Node processes)', [
    [
      'import host-core / the SDK v2 client, median of 15',
      `${importOurs.toFixed(1)} / ${importSdk.toFixed(1)} ms`,
    ],
    [
      '  ratio (aim ≤ 1.3×)',
      `${(importOurs / importSdk).toFixed(2)}× ${verdict(importOurs / importSdk <= 1.3)}`,
    ],
    ...rssByEra.flatMap(
      ({ revision, ours: memoryOurs, bare: memorySdk }): Array<[string, string]> => [
        [
          `(${revision}) RSS with 10 stdio servers: McpClientManager / bare SDK v2 Clients`,
          `${memoryOurs.toFixed(1)} / ${memorySdk.toFixed(1)} MiB`,
        ],
        [
          `(${revision})   ratio (aim ≤ 1.15×)`,
          `${(memoryOurs / memorySdk).toFixed(2)}× ${verdict(memoryOurs / memorySdk <= 1.15)}`,
        ],
      ],
    ),
  ]);
});
