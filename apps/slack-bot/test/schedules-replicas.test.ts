import { openStore } from '@ai-assistant/store';
import { completion, type FakeRequest, postgresBinaries, recordingLogger } from '@ai-assistant/test-kit';
import { afterAll, describe, expect, it } from 'vitest';
import { type Cluster, lastQuestion, startCluster } from './cluster.js';
import { waitFor } from './harness.js';

const hasPostgres = postgresBinaries() !== undefined;
const title = 'schedules over two bot processes on one PostgreSQL';
const count = 1000;
const concurrency = 4;

(hasPostgres ? describe : describe.skip)(
  hasPostgres ? title : `${title} (platform skip: no initdb or pg_ctl on this machine)`,
  () => {
    let cluster: Cluster | undefined;
    afterAll(() => cluster?.close(), 60_000);

    it('#47 1,000 schedules post each occurrence exactly once, also when one replica is killed mid-run', async () => {
      // The first runs' model calls wait until both replicas hold some; then one replica is killed.
      let waiting = 0;
      let open: () => void = () => {};
      const gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      let held = 0;
      const model = async (request: FakeRequest) => {
        const question = lastQuestion(request);
        if (held < 2 * concurrency) {
          held++;
          waiting++;
          await gate;
          waiting--;
        }
        return completion(request, { text: `answer to ${question}` });
      };
      cluster = await startCluster({
        count: 2,
        maxConcurrent: 4,
        model,
        env: { SCHEDULE_TICK_MS: '100', SCHEDULE_CONCURRENCY: String(concurrency) },
      });
      if (!cluster) throw new Error('no cluster');
      const running = cluster;
      const owners = Array.from({ length: count }, (_, index) => `U${String(index).padStart(7, '0')}`);
      running.slack.setChannel('C0LOAD', { members: owners });
      const store = await openStore({
        databaseUrl: running.databaseUrl,
        env: { ASSISTANT_ENCRYPTION_KEY: running.key },
        logger: recordingLogger(),
      });
      try {
        const now = new Date();
        for (const [index, owner] of owners.entries())
          await store.schedules.create({
            workspace: 'T0001',
            owner,
            channel: 'C0LOAD',
            question: `question ${index}`,
            cron: '0 8 * * *',
            timeZone: 'Asia/Tokyo',
            description: '毎朝8時',
            approvedTools: [],
            nextRunAt: now,
          });
        // Both replicas hold runs in the model; then the first is killed in the middle of them.
        await waitFor(() => waiting >= 2 * concurrency, 60_000);
        const victim = running.replicas[0];
        victim?.child.kill('SIGKILL');
        await victim?.exited;
        open();
        const posts = () =>
          running.slack
            .callsOf('chat.postMessage')
            .filter((call) => call.args.channel === 'C0LOAD' && !call.args.thread_ts)
            .map((call) => /: (question \d+)/.exec(String(call.args.text))?.[1] ?? '');
        const ended = async () => {
          const rows = await store.schedules.ofWorkspace('T0001', count + 10);
          return rows.filter((row) => row.lastStatus !== undefined).length;
        };
        await waitFor(() => posts().length >= count - 2 * concurrency || undefined, 120_000);
        const deadline = Date.now() + 120_000;
        while ((await ended()) < count) {
          if (Date.now() > deadline) throw new Error(`only ${await ended()} of ${count} runs ended`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const rows = await store.schedules.ofWorkspace('T0001', count + 10);
        const posted = posts();
        const byQuestion = new Map<string, number>();
        for (const question of posted) byQuestion.set(question, (byQuestion.get(question) ?? 0) + 1);
        // Never twice.
        expect([...byQuestion.values()].filter((times) => times > 1)).toEqual([]);
        // Each occurrence posted once, or (killed while posting) reported failed and not posted again.
        const interrupted = rows.filter((row) => row.lastStatus === 'failed');
        for (const row of interrupted) expect(row.lastDetail).toContain('stopped while posting');
        expect(posted.length + interrupted.length).toBe(count);
        expect(rows.filter((row) => row.lastStatus === 'posted')).toHaveLength(posted.length);
        // The killed replica's runs (it held some in the model) were taken over by the other one.
        expect(running.replicas[1]?.output()).toContain('took over a scheduled run whose replica stopped');
        expect(running.replicas[1]?.output()).not.toContain('could not record a scheduled run');
      } finally {
        await store.close();
      }
    }, 240_000);
  },
);
