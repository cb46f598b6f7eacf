import { botUserId, postgresBinaries } from '@ai-assistant/test-kit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, healthIs, slowEchoModel, startCluster } from './cluster.js';
import { waitFor } from './harness.js';

const hasPostgres = postgresBinaries() !== undefined;
const title = 'two bot processes in HTTP mode, one PostgreSQL, a round-robin proxy';

/** Per thread tag: the questions in the order their model calls started, and any overlap seen. */
const started = new Map<string, string[]>();
const running = new Map<string, number>();
const overlaps: string[] = [];
let hold: Promise<void> | undefined;
let holdRelease: () => void = () => {};

/** A thread's finished answers (placeholders excluded), in thread order. */
function answersIn(cluster: Cluster, channel: string, threadTs: string): string[] {
  return cluster.slack
    .thread(channel, threadTs)
    .filter(
      (message) => message.user === botUserId && !message.streaming && message.text.startsWith('answer to'),
    )
    .map((message) => message.text);
}

async function advisoryLocks(cluster: Cluster): Promise<number> {
  const client = new pg.Client({ connectionString: cluster.databaseUrl });
  await client.connect();
  try {
    const result = await client.query<{ n: string }>(
      `select count(*)::text as n from pg_locks where locktype = 'advisory'
         and database = (select oid from pg_database where datname = current_database())`,
    );
    return Number(result.rows[0]?.n);
  } finally {
    await client.end();
  }
}

(hasPostgres ? describe : describe.skip)(
  hasPostgres ? title : `${title} (platform skip: no initdb or pg_ctl on this machine)`,
  () => {
    let cluster: Cluster;
    beforeAll(async () => {
      const model = slowEchoModel(200, async (question) => {
        const tag = /^(\S+)\s/.exec(question)?.[1] ?? question;
        (started.get(tag) ?? started.set(tag, []).get(tag))?.push(question);
        if ((running.get(tag) ?? 0) > 0) overlaps.push(question);
        running.set(tag, (running.get(tag) ?? 0) + 1);
        if (question.includes('hold me') && hold) await hold;
        setTimeout(() => running.set(tag, (running.get(tag) ?? 1) - 1), 200);
      });
      cluster = (await startCluster({ count: 2, maxConcurrent: 4, model })) as Cluster;
    }, 120_000);
    afterAll(() => cluster?.close(), 60_000);

    it('an event and its retry (X-Slack-Retry-Num: 1) reaching different replicas are answered once', async () => {
      const { slack, proxy, llm } = cluster;
      const ts = slack.say('C_DUP', `<@${botUserId}> d1 one question`);
      const event = {
        type: 'app_mention',
        channel: 'C_DUP',
        user: 'UHUMAN01',
        text: `<@${botUserId}> d1 one question`,
        ts,
        event_ts: ts,
      };
      proxy.sendNextTo(0);
      await slack.push(event, { eventId: 'EvDUP1' });
      proxy.sendNextTo(1);
      await slack.push(event, { eventId: 'EvDUP1', retryAttempt: 1 });
      // And once more, both at the same moment.
      const ts2 = slack.say('C_DUP', `<@${botUserId}> d2 two question`);
      const event2 = { ...event, text: `<@${botUserId}> d2 two question`, ts: ts2, event_ts: ts2 };
      await Promise.all([
        slack.push(event2, { eventId: 'EvDUP2' }),
        slack.push(event2, { eventId: 'EvDUP2', retryAttempt: 1 }),
      ]);
      await waitFor(
        () => answersIn(cluster, 'C_DUP', ts).length === 1 && answersIn(cluster, 'C_DUP', ts2).length === 1,
        15_000,
      );
      await new Promise((done) => setTimeout(done, 500));
      expect(
        slack.deliveries
          .filter((delivery) => delivery.eventId.startsWith('EvDUP'))
          .map((delivery) => delivery.status),
      ).toEqual([200, 200, 200, 200]);
      expect(new Set(proxy.routed).size).toBe(2);
      expect(slack.thread('C_DUP', ts).filter((message) => message.user === botUserId)).toHaveLength(1);
      expect(slack.thread('C_DUP', ts2).filter((message) => message.user === botUserId)).toHaveLength(1);
      expect(llm.requests.filter((request) => JSON.stringify(request.body).includes('d1 one'))).toHaveLength(
        1,
      );
    }, 30_000);

    it('50 mentions in 10 threads, spread over both replicas, are all answered, each thread in order', async () => {
      const { slack, proxy } = cluster;
      const before = proxy.routed.length;
      const roots = Array.from({ length: 10 }, (_, thread) =>
        slack.say('C_ORDER', `thread ${thread} starts`),
      );
      // Slack delivers one thread's messages as people write them: each round after the last one was
      // received (acknowledged), the ten threads of a round at once. Answers take 200 ms, so a round
      // arrives while the thread's previous answer still runs, often on the other replica.
      for (let round = 0; round < 5; round++) {
        const sends: Array<Promise<unknown>> = [];
        for (let position = 0; position < 10; position++) {
          // Rotated each round, so a thread's messages alternate between the replicas.
          const thread = (position + round) % 10;
          sends.push(slack.mention('C_ORDER', `t${thread} q${round}`, { threadTs: roots[thread] as string }));
        }
        await Promise.all(sends);
        await new Promise((done) => setTimeout(done, 30));
      }
      await waitFor(() => roots.every((root) => answersIn(cluster, 'C_ORDER', root).length === 5), 60_000);
      const routed = proxy.routed.slice(before);
      expect(routed.filter((target) => target === 0).length).toBe(25);
      for (let thread = 0; thread < 10; thread++) {
        const expected = Array.from({ length: 5 }, (_, round) => `t${thread} q${round}`);
        // Answered one at a time, in order (each model call started after the previous answer ended).
        expect(started.get(`t${thread}`)).toEqual(expected);
        // The answers sit in the thread in that order too: each placeholder is posted when its turn
        // comes (before: posted on arrival by either replica, they could land as q0, q2, q1, …).
        expect(answersIn(cluster, 'C_ORDER', roots[thread] as string)).toEqual(
          expected.map((text) => `answer to ${text}`),
        );
      }
      expect(overlaps).toEqual([]);
    }, 90_000);

    it('messages of one thread delivered out of Slack order are answered in Slack order, without deadlock', async () => {
      const { slack, proxy, llm } = cluster;
      hold = new Promise((done) => {
        holdRelease = done;
      });
      const root = slack.say('C_SWAP', 'swap thread');
      const mentionOf = (text: string) => {
        const full = `<@${botUserId}> ${text}`;
        const ts = slack.say('C_SWAP', full, { threadTs: root });
        return {
          type: 'app_mention',
          channel: 'C_SWAP',
          user: 'UHUMAN01',
          text: full,
          ts,
          event_ts: ts,
          thread_ts: root,
        };
      };
      const first = mentionOf('s hold me');
      const second = mentionOf('s second');
      const third = mentionOf('s third');
      proxy.sendNextTo(0);
      await slack.push(first);
      await waitFor(
        () => llm.requests.some((request) => JSON.stringify(request.body).includes('s hold me')),
        15_000,
      );
      // Slack's retries and parallel deliveries can swap two messages: the third arrives before the second.
      proxy.sendNextTo(0);
      await slack.push(third);
      proxy.sendNextTo(0);
      await slack.push(second);
      holdRelease();
      await waitFor(() => answersIn(cluster, 'C_SWAP', root).length === 3, 20_000);
      expect(started.get('s')).toEqual(['s hold me', 's second', 's third']);
    }, 60_000);

    it('a replica killed with SIGKILL mid-answer does not stop the other from answering that thread', async () => {
      const { slack, proxy, llm, replicas } = cluster;
      hold = new Promise((done) => {
        holdRelease = done;
      });
      const root = slack.say('C_KILL', 'kill thread');
      proxy.sendNextTo(0);
      await slack.mention('C_KILL', 'k hold me', { threadTs: root });
      await waitFor(
        () => llm.requests.some((request) => JSON.stringify(request.body).includes('k hold me')),
        15_000,
      );
      replicas[0]?.child.kill('SIGKILL');
      expect(await replicas[0]?.exited).toBe(null);
      holdRelease();
      proxy.sendNextTo(1);
      await slack.mention('C_KILL', 'k after the kill', { threadTs: root });
      await waitFor(() => answersIn(cluster, 'C_KILL', root).includes('answer to k after the kill'), 20_000);
      // The killed replica's answer never came; its placeholder is what the thread shows.
      expect(answersIn(cluster, 'C_KILL', root)).toEqual(['answer to k after the kill']);
      await cluster.restart(0);
    }, 60_000);

    it('SIGTERM lets the running answer finish and gives back every lock of the replica', async () => {
      const { slack, proxy, llm, replicas } = cluster;
      const locksBefore = await advisoryLocks(cluster); // one liveness lock per replica
      expect(locksBefore).toBe(2);
      hold = new Promise((done) => {
        holdRelease = done;
      });
      const root = slack.say('C_TERM', 'term thread');
      proxy.sendNextTo(1);
      await slack.mention('C_TERM', 'term hold me', { threadTs: root });
      await waitFor(
        () => llm.requests.some((request) => JSON.stringify(request.body).includes('term hold me')),
        15_000,
      );
      expect(await advisoryLocks(cluster)).toBe(3); // and the thread's turn
      replicas[1]?.child.kill('SIGTERM');
      setTimeout(() => holdRelease(), 300);
      expect(await replicas[1]?.exited).toBe(0);
      expect(answersIn(cluster, 'C_TERM', root)).toEqual(['answer to term hold me']);
      expect(await advisoryLocks(cluster)).toBe(1);
      await cluster.restart(1);
    }, 60_000);

    it('a replica that cannot reach PostgreSQL answers 503 on /healthz and refuses events', async () => {
      const { slack, proxy, replicas, postgres } = cluster;
      const healthy = await healthIs(replicas[0]?.url as string, 200);
      expect(healthy.store).toEqual({ engine: 'postgres', reachable: true });
      postgres.stop();
      const down = await healthIs(replicas[0]?.url as string, 503, 15_000);
      expect(down.status).toBe('unavailable');
      expect(down.store).toEqual({ engine: 'postgres', reachable: false });
      const ts = slack.say('C_DOWN', `<@${botUserId}> while the store is down`);
      proxy.sendNextTo(0);
      await slack.push(
        {
          type: 'app_mention',
          channel: 'C_DOWN',
          user: 'UHUMAN01',
          text: `<@${botUserId}> while the store is down`,
          ts,
          event_ts: ts,
        },
        { eventId: 'EvDOWN' },
      );
      expect(slack.deliveries.at(-1)).toEqual({ eventId: 'EvDOWN', retryNum: 0, status: 503 });
      expect(slack.thread('C_DOWN', ts).filter((message) => message.user === botUserId)).toEqual([]);
      for (const replica of replicas) expect(replica.output()).not.toContain('cluster-signing-secret');
    }, 60_000);
  },
);
