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

// RSS once 10 stdio servers are connected (after a full GC in both): the manager against bare SDK Clients.
const rssWithTen = (host: boolean) =>
  Number(
    run(
      host
        ? `import { McpClientManager } from './dist/index.js';
           const m = new McpClientManager();
           await m.connect(Array.from({ length: 10 }, (_, i) => ({ name: 'e' + i, transport: 'stdio', command: process.execPath, args: ['${echo}'], env: {}, cwd: '.', timeoutMs: 30000, disabled: false })));
           m.listTools(); globalThis.gc(); console.log(process.memoryUsage().rss / 1048576); await m.close();`
        : `import { Client } from '@modelcontextprotocol/sdk/client/index.js';
           import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
           const clients = await Promise.all(Array.from({ length: 10 }, async () => {
             const c = new Client({ name: 'b', version: '0' });
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
  const rssOurs: number[] = [];
  const rssSdk: number[] = [];
  for (let index = 0; index < runs; index++) {
    if (index % 2 === 1) sdk.push(importTime('@modelcontextprotocol/sdk/client/index.js'));
    ours.push(importTime('./dist/index.js'));
    if (index % 2 === 0) sdk.push(importTime('@modelcontextprotocol/sdk/client/index.js'));
  }
  for (let index = 0; index < 3; index++) {
    rssOurs.push(rssWithTen(true));
    rssSdk.push(rssWithTen(false));
  }
  const importOurs = percentile(ours, 0.5);
  const importSdk = percentile(sdk, 0.5);
  const memoryOurs = percentile(rssOurs, 0.5);
  const memorySdk = percentile(rssSdk, 0.5);
  printTable('@ai-assistant/host-core footprint (fresh Node processes)', [
    [
      'import host-core / the SDK client, median of 15',
      `${importOurs.toFixed(1)} / ${importSdk.toFixed(1)} ms`,
    ],
    [
      '  ratio (aim ≤ 1.3×)',
      `${(importOurs / importSdk).toFixed(2)}× ${verdict(importOurs / importSdk <= 1.3)}`,
    ],
    [
      'RSS with 10 stdio servers: McpClientManager / bare SDK Clients',
      `${memoryOurs.toFixed(1)} / ${memorySdk.toFixed(1)} MiB`,
    ],
    [
      '  ratio (aim ≤ 1.15×)',
      `${(memoryOurs / memorySdk).toFixed(2)}× ${verdict(memoryOurs / memorySdk <= 1.15)}`,
    ],
  ]);
});
