import { readFileSync } from 'node:fs';
import { childProcesses } from '@ai-assistant/test-kit';
import { it } from 'vitest';
import { McpClientManager } from '../src/mcp/client-manager.js';
import { personalEcho } from '../test/helpers.js';
import { percentile, printTable } from './table.js';

const rssMiB = (pid: number | 'self') => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmRSS:'));
  return Number(line?.replace(/\D+/g, '') ?? 0) / 1024;
};

it('per-person connections: cold first call, and 100 pooled stdio connections', async () => {
  const servers = personalEcho();
  const manager = new McpClientManager({ env: {}, personalPool: { max: 100 } });
  await manager.connect(servers);
  const person = (index: number) => ({
    workspace: 'T1',
    user: `U${index}`,
    credentials: { mine: `tok-user${index}-0123456789` },
  });
  try {
    // Cold: the person's first turn opens their connection (spawn, initialize, tools/list), then calls.
    const cold: number[] = [];
    const warm: number[] = [];
    for (let index = 0; index < 10; index++) {
      const started = performance.now();
      const view = await manager.forPerson(person(index));
      await view.callTool('mcp__mine__token_owner', {});
      cold.push(performance.now() - started);
      const again = performance.now();
      await (await manager.forPerson(person(index))).callTool('mcp__mine__token_owner', {});
      warm.push(performance.now() - again);
    }
    const hostBefore = rssMiB('self');
    for (let batch = 10; batch < 100; batch += 10)
      await Promise.all(Array.from({ length: 10 }, (_, offset) => manager.forPerson(person(batch + offset))));
    const children = childProcesses();
    const childRss = children.reduce((sum, pid) => sum + rssMiB(pid), 0);
    printTable('Per-person connections (stdio echo server)', [
      [
        'time to first call, cold connection (p50 / worst of 10)',
        `${percentile(cold, 0.5).toFixed(0)} ms / ${Math.max(...cold).toFixed(0)} ms`,
      ],
      ['same person, next turn (pooled) p50', `${percentile(warm, 0.5).toFixed(2)} ms`],
      ['pooled connections / child processes', `${manager.personalConnections()} / ${children.length}`],
      [
        'host RSS with 100 pooled (growth from 10)',
        `${rssMiB('self').toFixed(1)} MiB (+${(rssMiB('self') - hostBefore).toFixed(1)} MiB)`,
      ],
      [
        'children RSS, 100 servers (each ≈)',
        `${childRss.toFixed(0)} MiB (${(childRss / Math.max(1, children.length)).toFixed(1)} MiB)`,
      ],
    ]);
  } finally {
    await manager.close();
  }
}, 600_000);
