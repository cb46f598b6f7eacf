import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newKey, openStore, type Store } from '@ai-assistant/store';
import { completion, type FakeRequest, startPostgres } from '@ai-assistant/test-kit';
import { it } from 'vitest';
import { answers, startHarness, waitFor } from '../test/harness.js';

function percentile(samples: number[], fraction: number): number {
  const sorted = [...samples].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

const followUps = 10;
const recorded = 2000;

/** A thread started by people, the bot mentioned in it, then `followUps` follow-ups: Slack calls each. */
async function callsPerFollowUp(): Promise<{ history: number; all: number; refused: number }> {
  const h = await startHarness({ mcpEnabled: false, slack: { historyLimits: {} } });
  try {
    h.llm.respondWith((request: FakeRequest) => completion(request, { text: 'ok' }));
    const root = h.slack.say('C_BENCH', 'people talk first', { user: 'UOTHER01' });
    h.slack.say('C_BENCH', 'a fact', { user: 'UOTHER01', threadTs: root });
    await h.slack.mention('C_BENCH', 'question', { threadTs: root });
    await waitFor(() => answers(h, 'C_BENCH', root).length >= 1, 15_000);
    const before = h.slack.calls.length;
    const historyBefore = h.slack.calls.filter((call) => call.method.startsWith('conversations.')).length;
    for (let index = 0; index < followUps; index++) {
      const text = `follow-up ${index}`;
      const ts = h.slack.say('C_BENCH', text, { threadTs: root });
      await h.slack.push({
        type: 'message',
        channel: 'C_BENCH',
        channel_type: 'channel',
        user: 'UHUMAN01',
        text,
        ts,
        thread_ts: root,
      });
      await waitFor(() => answers(h, 'C_BENCH', root).length >= index + 2, 15_000);
    }
    const history =
      h.slack.calls.filter((call) => call.method.startsWith('conversations.')).length - historyBefore;
    return {
      history: history / followUps,
      all: (h.slack.calls.length - before) / followUps,
      refused: h.slack.refusedReads.length,
    };
  } finally {
    await h.close();
  }
}

/** Milliseconds of each `conversations.record` of one thread's messages (after a warm-up). */
async function recordCost(store: Store): Promise<number[]> {
  const samples: number[] = [];
  const thread = 'C_BENCH:1700000000.000100';
  await store.conversations.join('T_BENCH', thread, { historyRead: true, at: new Date() });
  for (let index = 0; index < recorded + 100; index++) {
    const started = performance.now();
    await store.conversations.record('T_BENCH', thread, {
      id: `${1_700_000_001 + index}.000100`,
      role: index % 2 ? 'assistant' : 'user',
      person: 'U_BENCH',
      text: `message ${index} `.repeat(20),
      at: new Date(1_700_000_001_000 + index * 1000),
    });
    if (index >= 100) samples.push(performance.now() - started);
  }
  return samples;
}

it('conversations: Slack calls per follow-up under the distributed-app limits; the store’s cost per recorded message', async () => {
  const rows: Array<[string, string]> = [];
  const calls = await callsPerFollowUp();
  rows.push([
    `Slack history reads per answered follow-up in a known thread (${followUps} follow-ups, limits on)`,
    `${calls.history.toFixed(2)} ${calls.history === 0 ? 'met' : 'MISSED'} (aim 0); 429s: ${calls.refused}`,
  ]);
  rows.push(['all Slack API calls per answered follow-up (placeholder, answer)', calls.all.toFixed(2)]);

  const dataDir = mkdtempSync(join(tmpdir(), 'conversations-bench-'));
  const postgres = await startPostgres();
  try {
    const embedded = await openStore({ dataDir, env: {} });
    try {
      const samples = await recordCost(embedded);
      rows.push([
        `store: record one message, PGlite (${recorded} messages)`,
        `p50 ${percentile(samples, 0.5).toFixed(2)} ms, p99 ${percentile(samples, 0.99).toFixed(2)} ms`,
      ]);
    } finally {
      await embedded.close();
    }
    if (!postgres) throw new Error('PostgreSQL (initdb/pg_ctl) is needed for this benchmark');
    const server = await openStore({
      databaseUrl: postgres.newDatabase(),
      dataDir,
      env: { ASSISTANT_ENCRYPTION_KEY: newKey() },
    });
    try {
      const samples = await recordCost(server);
      rows.push([
        `store: record one message, PostgreSQL (${recorded} messages)`,
        `p50 ${percentile(samples, 0.5).toFixed(2)} ms, p99 ${percentile(samples, 0.99).toFixed(2)} ms`,
      ]);
    } finally {
      await server.close();
    }
  } finally {
    postgres?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const width = Math.max(...rows.map(([label]) => label.length));
  process.stdout.write(
    `\n@ai-assistant/slack-bot conversations (fake Slack with 1 history read a minute, pages of 15)\n${rows.map(([label, value]) => `| ${label.padEnd(width)} | ${value} |`).join('\n')}\n\n`,
  );
}, 300_000);
