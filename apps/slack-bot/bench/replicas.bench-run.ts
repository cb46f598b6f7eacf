import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newKey, openStore } from '@ai-assistant/store';
import { botUserId, startPostgres } from '@ai-assistant/test-kit';
import { it } from 'vitest';
import { type Cluster, slowEchoModel, startCluster } from '../test/cluster.js';

function percentile(samples: number[], fraction: number): number {
  const sorted = [...samples].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

const maxConcurrent = 4;
const threads = 40;
const perThread = 2;

/** Sends `threads × perThread` mentions at once through the proxy; answers per second until the last is posted. */
async function throughput(cluster: Cluster): Promise<number> {
  const { slack } = cluster;
  const roots = Array.from({ length: threads }, (_, thread) =>
    slack.say('C_BENCH', `bench thread ${thread}`),
  );
  const started = performance.now();
  const sends: Array<Promise<unknown>> = [];
  for (let round = 0; round < perThread; round++)
    for (const [thread, root] of roots.entries())
      sends.push(slack.mention('C_BENCH', `b${thread} r${round}`, { threadTs: root }));
  await Promise.all(sends);
  const total = threads * perThread;
  const deadline = Date.now() + 120_000;
  for (;;) {
    const done = roots.reduce(
      (count, root) =>
        count +
        slack
          .thread('C_BENCH', root)
          .filter((message) => message.user === botUserId && message.text.startsWith('answer to')).length,
      0,
    );
    if (done >= total) break;
    if (Date.now() > deadline) throw new Error(`only ${done} of ${total} answered`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return total / ((performance.now() - started) / 1000);
}

it('replicas: answers per second with one and two, the claim and the thread turn', async () => {
  const rows: string[] = [];
  const rates: number[] = [];
  for (const count of [1, 2]) {
    const cluster = await startCluster({ count, maxConcurrent, model: slowEchoModel(200) });
    if (!cluster) throw new Error('PostgreSQL (initdb/pg_ctl) is needed for this benchmark');
    try {
      await throughput(cluster); // warm-up: connections, JIT
      const rate = await throughput(cluster);
      rates.push(rate);
      rows.push(
        `| answers/s, ${count} replica${count > 1 ? 's' : ' '} (MAX_CONCURRENT_ANSWERS=${maxConcurrent}, model 200 ms/call) | ${rate.toFixed(1)} | |`,
      );
    } finally {
      await cluster.close();
    }
  }
  const ratio = (rates[1] ?? 0) / (rates[0] ?? 1);
  rows.push(`| two replicas ÷ one | ${ratio.toFixed(2)}× | ≥ 1.8× ${ratio >= 1.8 ? 'met' : 'MISSED'} |`);

  const postgres = await startPostgres();
  if (!postgres) throw new Error('PostgreSQL (initdb/pg_ctl) is needed for this benchmark');
  const dataDir = mkdtempSync(join(tmpdir(), 'claims-bench-'));
  const store = await openStore({
    dataDir,
    databaseUrl: postgres.newDatabase(),
    env: { ASSISTANT_ENCRYPTION_KEY: newKey() },
  });
  try {
    await store.coordination.start();
    const claims: number[] = [];
    const turns: number[] = [];
    const both: number[] = [];
    for (let index = 0; index < 1100; index++) {
      const event = {
        id: `EvBench${index}`,
        thread: `T1:C1:${index % 50}.000100`,
        order: (1000 + index) * 1_000_000 + 100,
      };
      const started = performance.now();
      await store.coordination.claim(event);
      const claimed = performance.now();
      const turn = await store.coordination.tryTurn(event);
      await turn?.release();
      const finished = performance.now();
      if (index < 100) continue; // warm-up
      claims.push(claimed - started);
      turns.push(finished - claimed);
      both.push(finished - started);
    }
    const line = (label: string, samples: number[], aim = '') =>
      `| ${label} p50 / p99 | ${percentile(samples, 0.5).toFixed(3)} / ${percentile(samples, 0.99).toFixed(3)} ms | ${aim} |`;
    rows.push(line('dedupe claim (insert on event_id)', claims));
    rows.push(line('thread turn: advisory lock, order check, finish, unlock', turns));
    const p50 = percentile(both, 0.5);
    rows.push(line('claim + turn, per answer', both, `p50 < 2 ms ${p50 < 2 ? 'met' : 'MISSED'}`));
  } finally {
    await store.close();
    postgres.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  process.stdout.write(
    `\nSeveral replicas on one PostgreSQL\n| measure | value | aim |\n|---|---|---|\n${rows.join('\n')}\n\n`,
  );
}, 600_000);
