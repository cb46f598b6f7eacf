import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { connectDatabase } from '../src/engines.js';
import type { Store } from '../src/index.js';
import { migrate } from '../src/migrations.js';
import { storeDatabase } from '../src/testing.js';
import { onBothEngines } from './engines.js';

onBothEngines('replicas', ({ engine, fresh, open }) => {
  it('an event is claimed once, whichever replica and however many at once', async () => {
    const options = fresh();
    const replicas =
      engine === 'postgres' ? [await open(options), await open(options)] : [await open(options)];
    const claims = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        (replicas[index % replicas.length] as Store).coordination.claim({ id: 'Ev_SAME' }),
      ),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await replicas[0]?.coordination.claim({ id: 'Ev_OTHER' })).toBe(true);
  });

  it('#43.12 turns asked at once on every replica: one reservation fits 100 tokens, the others are refused until it settles', async () => {
    const options = fresh();
    const replicas =
      engine === 'postgres' ? [await open(options), await open(options)] : [await open(options)];
    const day = '2026-11-27';
    const ask = (replica: Store, person = 'U1') =>
      replica.usage.reserve({
        workspace: 'T1',
        person,
        day,
        tokens: 2000,
        toolCalls: 1,
        holdMs: 60_000,
        limits: { tokensPerPersonDay: 100, tokensPerWorkspaceDay: 10_000 },
      });
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, index) => ask(replicas[index % replicas.length] as Store)),
    );
    const held = answers.filter((answer) => answer.ok);
    expect(held).toHaveLength(1);
    expect(answers.filter((answer) => !answer.ok)).toEqual(
      Array.from({ length: 9 }, () => ({ ok: false, limit: 'tokensPerPersonDay', inFlight: true })),
    );
    // Someone else in the workspace is not held by it.
    expect((await ask(replicas[0] as Store, 'U2')).ok).toBe(true);
    const id = (held[0] as { id: string }).id;
    await (replicas.at(-1) as Store).usage.settle(id, 'T1', 'U1', day, { questions: 1, inputTokens: 400 });
    expect(await (replicas[0] as Store).usage.totals('T1', day, day, 'U1')).toMatchObject({
      questions: 1,
      inputTokens: 400,
    });
    expect(await ask(replicas[0] as Store)).toEqual({
      ok: false,
      limit: 'tokensPerPersonDay',
      inFlight: false,
    });
  });

  it('#44 an order that is not a finite number is claimed without it, and the thread’s turn still comes', async () => {
    const store = await open(fresh());
    const event = { id: 'Ev_NO_ORDER', thread: 'T1:C1:x', order: Number.NaN };
    expect(await store.coordination.claim(event)).toBe(true);
    const turn = await store.coordination.tryTurn(event);
    expect(turn).toBeDefined();
    await turn?.release();
    const row = await storeDatabase(store).selectFrom('event_claims').selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ event_id: 'Ev_NO_ORDER', thread_order: null });
    expect(row.finished_at).not.toBeNull();
  });

  it('#44 claims stored with the order of the previous release are read in the app’s order', async () => {
    const options = fresh();
    // A database as the previous release left it: an unfinished claim ordered by seconds (100.000100).
    const { db, release } = await connectDatabase({
      dataDir: options.dataDir as string,
      ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}),
    });
    try {
      await migrate(db as never, { to: '0012_conversation_tools' });
      await sql`insert into event_claims (event_id, thread_key, message_ts, replica_key)
        values ('Ev_OLD', 'T1:C1:t', 100.000100, 1)`.execute(db);
    } finally {
      await db.destroy();
      release();
    }
    const store = await open(options);
    const row = await storeDatabase(store)
      .selectFrom('event_claims')
      .select(['event_id', 'thread_order'])
      .executeTakeFirstOrThrow();
    // The app now gives millionths of a second: the old claim still sorts before a later message's.
    expect(Number(row.thread_order)).toBe(100_000_100);
  });

  it('claims older than the retention are deleted by the app itself, newer ones kept', async () => {
    const store = await open(fresh());
    await store.coordination.claim({ id: 'Ev_OLD' });
    await store.coordination.claim({ id: 'Ev_NEW' });
    await storeDatabase(store)
      .updateTable('event_claims')
      .set({ claimed_at: new Date(Date.now() - 2 * 60 * 60 * 1000) })
      .where('event_id', '=', 'Ev_OLD')
      .execute();
    await store.coordination.start({ pruneEveryMs: 20 });
    const deadline = Date.now() + 5000;
    let left: string[] = [];
    while (Date.now() < deadline) {
      left = (await storeDatabase(store).selectFrom('event_claims').select('event_id').execute()).map(
        (row) => row.event_id,
      );
      if (left.length === 1) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(left).toEqual(['Ev_NEW']);
    // A retry of the pruned event an hour later would be answered again: 1 h is past Slack's retries.
    expect(await store.coordination.claim({ id: 'Ev_OLD' })).toBe(true);
  });

  if (engine === 'postgres') {
    it('#43.12 a budget check waits for another replica’s check of the workspace, then sees its hold', async () => {
      const options = fresh();
      const [a, b] = [await open(options), await open(options)] as [Store, Store];
      const request = {
        workspace: 'T9',
        person: 'U1',
        day: '2026-11-27',
        tokens: 2000,
        toolCalls: 1,
        holdMs: 60_000,
        limits: { tokensPerPersonDay: 100 },
      };
      let pending: ReturnType<Store['usage']['reserve']> | undefined;
      // Replica A is in the middle of its check (the workspace's lock held, its hold not yet committed).
      await storeDatabase(a)
        .transaction()
        .execute(async (trx) => {
          await sql`select pg_advisory_xact_lock(${0x41_41_03}, hashtext('T9'))`.execute(trx);
          pending = b.usage.reserve(request);
          // Replica B's check waits on the lock (seen in pg_locks), rather than reading around A.
          for (;;) {
            const waiting = await sql<{ count: string }>`
              select count(*) as count from pg_locks
              where locktype = 'advisory' and not granted and classid::bigint = ${0x41_41_03}`.execute(
              storeDatabase(a),
            );
            if (Number(waiting.rows[0]?.count) > 0) break;
            await new Promise((resolve) => setImmediate(resolve));
          }
          await trx
            .insertInto('usage_reservations')
            .values({
              id: 'held-by-a',
              workspace_id: 'T9',
              person_id: 'U1',
              tokens: '2000',
              tool_calls: 1,
              expires_at: new Date(Date.now() + 60_000),
            })
            .execute();
        });
      expect(await pending).toEqual({ ok: false, limit: 'tokensPerPersonDay', inFlight: true });
    });

    const thread = 'T1:C1:100.000100';
    // The app's own order, opaque to the store: 9 before 10 (as numbers, not as text).
    const first = { id: 'Ev_1', thread, order: 9 };
    const second = { id: 'Ev_2', thread, order: 10 };

    it('#44 one thread runs one answer at a time, in the app’s order, across replicas', async () => {
      const options = fresh();
      const [a, b] = [await open(options), await open(options)] as [Store, Store];
      await a.coordination.start();
      await b.coordination.start();
      expect(await a.coordination.claim(first)).toBe(true);
      expect(await b.coordination.claim(second)).toBe(true);
      // The later message waits for the earlier one, claimed by a live replica.
      expect(await b.coordination.tryTurn(second)).toBeUndefined();
      const turn = await a.coordination.tryTurn(first);
      expect(turn?.abandoned).toEqual([]);
      expect(await b.coordination.tryTurn(second)).toBeUndefined();
      // Another thread is not held up.
      const other = { id: 'Ev_3', thread: 'T1:C1:200.000100', order: 1 };
      await b.coordination.claim(other);
      const otherTurn = await b.coordination.tryTurn(other);
      expect(otherTurn).toBeDefined();
      await otherTurn?.release();
      await turn?.release();
      const next = await b.coordination.tryTurn(second);
      expect(next?.abandoned).toEqual([]);
      await next?.release();
      const finished = await storeDatabase(a)
        .selectFrom('event_claims')
        .select(['event_id', 'finished_at'])
        .execute();
      expect(finished.every((row) => row.finished_at !== null)).toBe(true);
    });

    it('a replica that dies mid-answer frees the thread at once; its claim is marked abandoned', async () => {
      const options = fresh();
      const [a, b] = [await open(options), await open(options)] as [Store, Store];
      await a.coordination.start();
      await b.coordination.start();
      await a.coordination.claim(first);
      await b.coordination.claim(second);
      const turn = await a.coordination.tryTurn(first);
      expect(turn).toBeDefined();
      expect(await b.coordination.tryTurn(second)).toBeUndefined();
      // What SIGKILL does to a replica's database sessions: they end (waited for, up to 5 s).
      await sql`select pg_terminate_backend(pid, 5000) from pg_locks
        where locktype = 'advisory' and (objid::bigint = ${a.coordination.replicaKey}
          or objid::bigint = (select hashtext(${thread})::bigint & 4294967295))`.execute(storeDatabase(b));
      const next = await b.coordination.tryTurn(second);
      expect(next?.abandoned).toEqual(['Ev_1']);
      await next?.release();
      await turn?.release().catch(() => {});
    });

    it('a replica whose liveness connection was cut takes its lock again at the next health check', async () => {
      const options = fresh();
      const [a, b] = [await open(options), await open(options)] as [Store, Store];
      await a.coordination.start();
      const held = async () =>
        (
          await sql<{ n: string }>`select count(*)::text as n from pg_locks
            where locktype = 'advisory' and objid::bigint = ${a.coordination.replicaKey}`.execute(
            storeDatabase(b),
          )
        ).rows[0]?.n;
      expect(await held()).toBe('1');
      await sql`select pg_terminate_backend(pid, 5000) from pg_locks
        where locktype = 'advisory' and objid::bigint = ${a.coordination.replicaKey}`.execute(
        storeDatabase(b),
      );
      expect(await held()).toBe('0');
      await a.coordination.check();
      expect(await held()).toBe('1');
    });

    it('closing a replica gives back every lock it held', async () => {
      const options = fresh();
      const [a, b] = [await open(options), await open(options)] as [Store, Store];
      await a.coordination.start();
      await a.coordination.claim(first);
      const turn = await a.coordination.tryTurn(first);
      await turn?.release();
      await a.close();
      const locks = await sql<{ n: string }>`
        select count(*)::text as n from pg_locks where locktype = 'advisory'
          and database = (select oid from pg_database where datname = current_database())`.execute(
        storeDatabase(b),
      );
      expect(locks.rows[0]?.n).toBe('0');
    });
  }
});
