import { rmSync } from 'node:fs';
import { newKey, openStore, type Store } from '@ai-assistant/store';
import { embeddedStoreFolder, recordingLogger, startPostgres } from '@ai-assistant/test-kit';
import { it } from 'vitest';
import { Scheduler } from '../src/index.js';

function percentile(samples: number[], fraction: number): number {
  const sorted = [...samples].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

const schedules = 10_000;
const ticks = 300;
const start = new Date('2026-11-27T15:00:00Z');
const tickMs = 15_000;

/** 10,000 schedules whose first runs are spread over a day, in minutes (as people set them). */
async function seed(store: Store, count: number, spreadMs: number, owners = 1000): Promise<void> {
  for (let index = 0; index < count; index++)
    await store.schedules.create({
      workspace: 'T_BENCH',
      owner: `U${index % owners}`,
      channel: 'C_BENCH',
      question: `question ${index}`,
      cron: `${index % 60} ${Math.floor(index / 60) % 24} * * *`,
      timeZone: 'Asia/Tokyo',
      description: 'bench',
      approvedTools: [],
      nextRunAt: new Date(start.getTime() + Math.floor((index * spreadMs) / count / 60_000) * 60_000),
    });
}

/** Milliseconds of each tick (the scheduler's own work: its queries and claims), runs doing nothing. */
async function tickCost(store: Store): Promise<{ samples: number[]; claimed: number }> {
  let now = new Date(start);
  const scheduler = new Scheduler({
    schedules: store.schedules,
    logger: recordingLogger(),
    now: () => now,
    concurrency: 50,
    run: async (occurrence) =>
      (await occurrence.beginPosting()) ? { state: 'posted' } : { state: 'skipped' },
  });
  const samples: number[] = [];
  let claimed = 0;
  for (let index = 0; index < ticks; index++) {
    now = new Date(start.getTime() + index * tickMs);
    const started = performance.now();
    claimed += (await scheduler.tick()).claimed;
    samples.push(performance.now() - started);
    await scheduler.settled();
  }
  await scheduler.stop();
  return { samples, claimed };
}

/** Three replicas (three stores on one database) tick together over `count` due occurrences. */
async function exactlyOnce(databaseUrl: string, key: string, count: number) {
  const stores = await Promise.all(
    [0, 1, 2].map(() => openStore({ databaseUrl, env: { ASSISTANT_ENCRYPTION_KEY: key } })),
  );
  for (const store of stores) await store.coordination.start();
  try {
    await seed(stores[0] as Store, count, 0);
    const seen = new Map<string, number>();
    const now = new Date(start.getTime() + 1000);
    const schedulers = stores.map(
      (store) =>
        new Scheduler({
          schedules: store.schedules,
          logger: recordingLogger(),
          now: () => now,
          concurrency: 8,
          run: async (occurrence) => {
            const key = `${occurrence.schedule.id}@${occurrence.dueAt.toISOString()}`;
            if (!(await occurrence.beginPosting())) return { state: 'skipped' };
            seen.set(key, (seen.get(key) ?? 0) + 1);
            return { state: 'posted' };
          },
        }),
    );
    const started = performance.now();
    for (let round = 0; round < 10_000 && seen.size < count; round++)
      await Promise.all(schedulers.map((scheduler) => scheduler.tick()));
    await Promise.all(schedulers.map((scheduler) => scheduler.stop()));
    const elapsed = performance.now() - started;
    const twice = [...seen.values()].filter((times) => times > 1).length;
    return { posted: seen.size, twice, missing: count - seen.size, elapsed };
  } finally {
    await Promise.all(stores.map((store) => store.close()));
  }
}

it('schedules: the scheduler’s cost per tick with 10,000 schedules; exactly once over three replicas', async () => {
  const rows: Array<[string, string]> = [];
  const postgres = await startPostgres();
  if (!postgres) throw new Error('PostgreSQL (initdb/pg_ctl) is needed for this benchmark');
  const folder = embeddedStoreFolder('schedules-bench-');
  try {
    const key = newKey();
    for (const engine of ['PGlite', 'PostgreSQL'] as const) {
      const store =
        engine === 'PGlite'
          ? await openStore({ dataDir: folder, env: {} })
          : await openStore({ databaseUrl: postgres.newDatabase(), env: { ASSISTANT_ENCRYPTION_KEY: key } });
      try {
        await seed(store, schedules, 24 * 3_600_000);
        const { samples, claimed } = await tickCost(store);
        const p99 = percentile(samples, 0.99);
        rows.push([
          `tick with ${schedules.toLocaleString('en-US')} schedules, ${engine} (${ticks} ticks of 15 s, ${claimed} runs claimed)`,
          `p50 ${percentile(samples, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms ${p99 <= 100 ? 'met' : 'MISSED'} (aim p99 ≤ 100 ms)`,
        ]);
      } finally {
        await store.close();
      }
    }
    const occurrences = 3000;
    const once = await exactlyOnce(postgres.newDatabase(), key, occurrences);
    rows.push([
      `exactly once: ${occurrences.toLocaleString('en-US')} due occurrences, 3 replicas ticking together (PostgreSQL)`,
      `${once.posted} posted, ${once.twice} twice, ${once.missing} missing ${once.twice === 0 && once.missing === 0 ? 'met' : 'MISSED'} (aim 0 twice, 0 missing); ${(occurrences / (once.elapsed / 1000)).toFixed(0)} runs/s`,
    ]);
  } finally {
    postgres.stop();
    rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
  }
  const width = Math.max(...rows.map(([label]) => label.length));
  process.stdout.write(
    `\n@ai-assistant/assistant schedules (runs that do nothing: the scheduler's own cost)\n${rows.map(([label, value]) => `| ${label.padEnd(width)} | ${value} |`).join('\n')}\n\n`,
  );
}, 600_000);
