import { sql } from 'kysely';
import { expect, it } from 'vitest';
import type { Store } from '../src/index.js';
import { rowsMentioning } from '../src/testing.js';
import { onBothEngines } from './engines.js';

const botToken = 'xoxb-T1-bot-token-never-in-clear';

const installation = (team: string, token: string) =>
  JSON.stringify({ team: { id: team }, bot: { token, userId: `U_BOT_${team}`, scopes: ['chat:write'] } });

onBothEngines('installations and replicas', ({ engine, fresh, open }) => {
  it('keeps an installation per workspace, its tokens encrypted at rest', async () => {
    const store = await open(fresh());
    await store.saveInstallation({
      teamId: 'T1',
      isEnterpriseInstall: false,
      botUserId: 'U_BOT_T1',
      scopes: ['chat:write', 'app_mentions:read'],
      data: installation('T1', botToken),
    });
    const found = await store.findInstallation({ teamId: 'T1', isEnterpriseInstall: false });
    expect(JSON.parse(found ?? '{}').bot.token).toBe(botToken);
    expect(await store.findInstallation({ teamId: 'T2', isEnterpriseInstall: false })).toBeUndefined();
    expect(await rowsMentioning(store, botToken)).toEqual([]);
    const row = await store.db.selectFrom('slack_installations').selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      id: 'T:T1',
      bot_user_id: 'U_BOT_T1',
      scopes: 'chat:write,app_mentions:read',
    });
  });

  it('an org-wide (Enterprise Grid) install is found by its enterprise, for any of its workspaces', async () => {
    const store = await open(fresh());
    await store.saveInstallation({
      enterpriseId: 'E1',
      isEnterpriseInstall: true,
      data: installation('E1', 'xoxb-E1-org-token'),
    });
    const query = { enterpriseId: 'E1', teamId: 'T_ANY', isEnterpriseInstall: true };
    expect(JSON.parse((await store.findInstallation(query)) ?? '{}').bot.token).toBe('xoxb-E1-org-token');
    expect(await store.findInstallation({ ...query, isEnterpriseInstall: false })).toBeUndefined();
  });

  it('forgetting an installation leaves nothing of the workspace in any table', async () => {
    const store = await open(fresh());
    await store.saveInstallation({
      teamId: 'TGONE',
      isEnterpriseInstall: false,
      data: installation('TGONE', botToken),
    });
    await store.saveInstallation({
      teamId: 'TKEPT',
      isEnterpriseInstall: false,
      data: installation('TKEPT', 'xoxb-T2'),
    });
    await store.putCredential('TGONE', 'U_ALICE', 'github', 'ghp_alice');
    await store.setServerEnabled('TGONE', 'weather', false, 'U_ADMIN');
    await store.coordination.claim({ id: 'Ev1', thread: 'TGONE:C1:1.000100', messageTs: '1.000100' });
    await store.putCredential('TKEPT', 'U_ALICE', 'github', 'ghp_kept');
    await store.coordination.claim({ id: 'Ev2', thread: 'TKEPT:C9:1.000100', messageTs: '1.000100' });

    expect(await store.forgetInstallation({ teamId: 'TGONE', isEnterpriseInstall: false })).toEqual([
      'TGONE',
    ]);
    expect(await rowsMentioning(store, 'TGONE')).toEqual([]);
    expect((await store.credentialsOf('TKEPT', 'U_ALICE')).secrets).toEqual({ github: 'ghp_kept' });
    expect(await store.findInstallation({ teamId: 'TKEPT', isEnterpriseInstall: false })).toBeDefined();
    // The other workspace's claim is kept (found by its thread key: a short id like "Ev2" can turn up
    // by chance inside a ciphertext, which a colon never can).
    expect(await rowsMentioning(store, 'TKEPT:C9:1.000100')).toHaveLength(1);
  });

  it('forgetting an org-wide install deletes every workspace of the organisation', async () => {
    const store = await open(fresh());
    await store.saveInstallation({
      enterpriseId: 'EGONE',
      isEnterpriseInstall: true,
      data: installation('EGONE', 'xoxb-EGONE'),
    });
    await store.ensureWorkspace('TGONE_A', 'EGONE');
    await store.ensureWorkspace('TGONE_B', 'EGONE');
    await store.putCredential('TGONE_A', 'U_ALICE', 'github', 'ghp_a');
    await store.putCredential('T_OTHER', 'U_ALICE', 'github', 'ghp_other');
    const gone = await store.forgetInstallation({
      enterpriseId: 'EGONE',
      teamId: 'TGONE_A',
      isEnterpriseInstall: true,
    });
    expect(gone.sort()).toEqual(['TGONE_A', 'TGONE_B']);
    expect(await rowsMentioning(store, 'EGONE')).toEqual([]);
    expect(await rowsMentioning(store, 'TGONE_A')).toEqual([]);
    expect((await store.credentialsOf('T_OTHER', 'U_ALICE')).secrets).toEqual({ github: 'ghp_other' });
  });

  it('rotating the key re-encrypts installations too', async () => {
    const { newKey } = await import('../src/index.js');
    const options = fresh();
    const oldKey = newKey();
    const before = await open({ ...options, env: { ASSISTANT_ENCRYPTION_KEY: oldKey } });
    await before.saveInstallation({
      teamId: 'T1',
      isEnterpriseInstall: false,
      data: installation('T1', botToken),
    });
    await before.close();
    const nextKey = newKey();
    const during = await open({ ...options, env: { ASSISTANT_ENCRYPTION_KEY: `${nextKey},${oldKey}` } });
    expect(await during.reencryptAll()).toBe(1);
    await during.close();
    const after = await open({ ...options, env: { ASSISTANT_ENCRYPTION_KEY: nextKey } });
    expect(await after.findInstallation({ teamId: 'T1', isEnterpriseInstall: false })).toContain(botToken);
  });

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

  it('a malformed message ts is claimed without it, and the thread’s turn still comes', async () => {
    const store = await open(fresh());
    const event = { id: 'Ev_BAD_TS', thread: 'T1:C1:x', messageTs: "1'; drop table event_claims; --" };
    expect(await store.coordination.claim(event)).toBe(true);
    const turn = await store.coordination.tryTurn(event);
    expect(turn).toBeDefined();
    await turn?.release();
    const row = await store.db.selectFrom('event_claims').selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ event_id: 'Ev_BAD_TS', message_ts: null });
    expect(row.finished_at).not.toBeNull();
  });

  it('claims older than the retention are deleted by the app itself, newer ones kept', async () => {
    const store = await open(fresh());
    await store.coordination.claim({ id: 'Ev_OLD' });
    await store.coordination.claim({ id: 'Ev_NEW' });
    await store.db
      .updateTable('event_claims')
      .set({ claimed_at: new Date(Date.now() - 2 * 60 * 60 * 1000) })
      .where('event_id', '=', 'Ev_OLD')
      .execute();
    await store.coordination.start({ pruneEveryMs: 20 });
    const deadline = Date.now() + 5000;
    let left: string[] = [];
    while (Date.now() < deadline) {
      left = (await store.db.selectFrom('event_claims').select('event_id').execute()).map(
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
    const thread = 'T1:C1:100.000100';
    const first = { id: 'Ev_1', thread, messageTs: '100.000100' };
    const second = { id: 'Ev_2', thread, messageTs: '100.000200' };

    it('one thread runs one answer at a time, in Slack order, across replicas', async () => {
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
      const other = { id: 'Ev_3', thread: 'T1:C1:200.000100', messageTs: '200.000100' };
      await b.coordination.claim(other);
      const otherTurn = await b.coordination.tryTurn(other);
      expect(otherTurn).toBeDefined();
      await otherTurn?.release();
      await turn?.release();
      const next = await b.coordination.tryTurn(second);
      expect(next?.abandoned).toEqual([]);
      await next?.release();
      const finished = await a.db.selectFrom('event_claims').select(['event_id', 'finished_at']).execute();
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
          or objid::bigint = (select hashtext(${thread})::bigint & 4294967295))`.execute(b.db);
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
            where locktype = 'advisory' and objid::bigint = ${a.coordination.replicaKey}`.execute(b.db)
        ).rows[0]?.n;
      expect(await held()).toBe('1');
      await sql`select pg_terminate_backend(pid, 5000) from pg_locks
        where locktype = 'advisory' and objid::bigint = ${a.coordination.replicaKey}`.execute(b.db);
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
          and database = (select oid from pg_database where datname = current_database())`.execute(b.db);
      expect(locks.rows[0]?.n).toBe('0');
    });
  }
});
