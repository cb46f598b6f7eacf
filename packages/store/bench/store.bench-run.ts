import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres } from '@ai-assistant/test-kit';
import { it } from 'vitest';
import { newKey, openStore, type Store } from '../src/index.js';

function percentile(samples: number[], fraction: number): number {
  const sorted = [...samples].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

/** 1 100 runs of `work`, timed; the first 100 warm up. */
async function timed(work: (index: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let index = 0; index < 1100; index++) {
    const started = performance.now();
    await work(index);
    if (index >= 100) samples.push(performance.now() - started);
  }
  return samples;
}

/**
 * What a turn reads from the store (People.viewFor): the asker's credentials, the workspace's server
 * settings and approval policies, and the servers it added (one, decrypted), together.
 */
async function turnCost(store: Store): Promise<number[]> {
  for (const server of ['github', 'jira', 'notion'])
    await store.credentials.put('T1', 'U1', server, `secret-${server}-0123456789`);
  await store.workspaces.setEnabled('T1', 'weather', true, 'UADMIN');
  await store.workspaces.setEnabled('T1', 'kb', false, 'UADMIN');
  await store.workspaces.setApproval('T1', 'weather', 'always', 'UADMIN');
  await store.workspaceServers.put(
    'T1',
    'crm',
    JSON.stringify({
      name: 'crm',
      kind: 'mcp',
      url: 'https://crm.example/mcp',
      auth: 'secret',
      secret: 'crm-secret-0123456789',
    }),
  );
  return timed(() =>
    Promise.all([
      store.credentials.of('T1', 'U1'),
      store.workspaces.policies('T1'),
      store.workspaceServers.list('T1'),
    ]),
  );
}

/** What the operator's records add to a turn with one tool call: its audit row, then the day's usage. */
async function recordCost(store: Store): Promise<number[]> {
  const day = '2026-11-25';
  return timed(async (index) => {
    await store.audit.record({
      at: new Date(),
      workspace: 'T1',
      person: `U${index % 20}`,
      kind: 'tool_call',
      server: 'weather',
      tool: 'get_forecast',
      arguments: '{"area":"東京"}',
      approval: { by: `U${index % 20}`, at: new Date() },
      outcome: 'ok',
      durationMs: 120,
    });
    await store.usage.add('T1', `U${index % 20}`, day, {
      questions: 1,
      inputTokens: 900,
      outputTokens: 150,
      toolCalls: 1,
    });
  });
}

it('the store’s cost per turn, on PGlite and on PostgreSQL', async () => {
  const rows: string[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'store-bench-'));
  const postgres = await startPostgres();
  if (!postgres) throw new Error('PostgreSQL (initdb/pg_ctl) is needed for this benchmark');
  try {
    for (const engine of ['pglite', 'postgres'] as const) {
      const store = await openStore(
        engine === 'pglite'
          ? { dataDir, env: {} }
          : { dataDir, databaseUrl: postgres.newDatabase(), env: { ASSISTANT_ENCRYPTION_KEY: newKey() } },
      );
      try {
        const samples = await turnCost(store);
        rows.push(
          `| turn's reads: credentials + settings + added servers, ${engine.padEnd(8)} | ${percentile(samples, 0.5).toFixed(3)} ms | ${percentile(samples, 0.99).toFixed(3)} ms | < 1 ms / < 3 ms: ${percentile(samples, 0.5) < 1 ? 'met' : 'MISSED'} / ${percentile(samples, 0.99) < 3 ? 'met' : 'MISSED'} |`,
        );
        const writes = await recordCost(store);
        rows.push(
          `| audit row + usage per turn (1 tool call), ${engine.padEnd(8)} | ${percentile(writes, 0.5).toFixed(3)} ms | ${percentile(writes, 0.99).toFixed(3)} ms | < 1 ms / < 3 ms: ${percentile(writes, 0.5) < 1 ? 'met' : 'MISSED'} / ${percentile(writes, 0.99) < 3 ? 'met' : 'MISSED'} |`,
        );
      } finally {
        await store.close();
      }
    }
  } finally {
    postgres.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  process.stdout.write(
    `\nStore cost per turn (1 000 each: 3 credentials and 1 added server decrypted, 2 settings; writes: one audit row and one usage upsert)\n| measure | p50 | p99 | aim p50 / p99 |\n|---|---|---|---|\n${rows.join('\n')}\n\n`,
  );
}, 300_000);
