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

/** What a turn pays for the store: the asker's credentials and the workspace's server settings, together. */
async function turnCost(store: Store): Promise<number[]> {
  for (const server of ['github', 'jira', 'notion'])
    await store.credentials.put('T1', 'U1', server, `secret-${server}-0123456789`);
  await store.workspaces.setEnabled('T1', 'weather', true, 'UADMIN');
  await store.workspaces.setEnabled('T1', 'kb', false, 'UADMIN');
  const samples: number[] = [];
  for (let index = 0; index < 1100; index++) {
    const started = performance.now();
    await Promise.all([store.credentials.of('T1', 'U1'), store.workspaces.settings('T1')]);
    if (index >= 100) samples.push(performance.now() - started); // the first 100 warm up
  }
  return samples;
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
          `| credentials + workspace settings, ${engine.padEnd(8)} | ${percentile(samples, 0.5).toFixed(3)} ms | ${percentile(samples, 0.99).toFixed(3)} ms | < 1 ms / < 3 ms: ${percentile(samples, 0.5) < 1 ? 'met' : 'MISSED'} / ${percentile(samples, 0.99) < 3 ? 'met' : 'MISSED'} |`,
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
    `\nStore cost per turn (1 000 lookups, 3 credentials decrypted, 2 settings)\n| measure | p50 | p99 | aim p50 / p99 |\n|---|---|---|---|\n${rows.join('\n')}\n\n`,
  );
}, 300_000);
