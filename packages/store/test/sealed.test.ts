import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { connectDatabase } from '../src/engines.js';
import { CredentialKeyError, Keyring, keysFromVariable, newKey } from '../src/keyring.js';
import { migrate } from '../src/migrations.js';
import { rowsMentioning, storeDatabase } from '../src/testing.js';
import { onBothEngines } from './engines.js';

const token = 'xoxb-T1-bot-token-never-in-clear';

onBothEngines('sealed records', ({ fresh, open }) => {
  it('keeps a record by kind and id, encrypted at rest; replaced, then deleted', async () => {
    const store = await open(fresh());
    await store.sealed.put('token', 'one', { workspace: 'T1' }, JSON.stringify({ token }));
    expect(JSON.parse((await store.sealed.get('token', 'one')) ?? '{}').token).toBe(token);
    expect(await store.sealed.get('token', 'two')).toBeUndefined();
    expect(await store.sealed.get('other-kind', 'one')).toBeUndefined();
    expect(await rowsMentioning(store, token)).toEqual([]);

    await store.sealed.put('token', 'one', { organisation: 'E1' }, 'replaced');
    expect(await store.sealed.get('token', 'one')).toBe('replaced');
    const row = await storeDatabase(store).selectFrom('sealed_records').selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ kind: 'token', id: 'one', workspace_id: null, organisation_id: 'E1' });
    expect(await store.sealed.delete('token', 'one')).toBe(true);
    expect(await store.sealed.delete('token', 'one')).toBe(false);
    expect(await store.sealed.get('token', 'one')).toBeUndefined();
  });

  it('#46 records of a kind not written since a time are pruned; other kinds and newer ones stay', async () => {
    const store = await open(fresh());
    await store.sealed.put('app-link', 'old', { workspace: 'T1' }, 'a');
    await store.sealed.put('app-link', 'new', { workspace: 'T1' }, 'b');
    await store.sealed.put('installation', 'old', { workspace: 'T1' }, 'c');
    await storeDatabase(store)
      .updateTable('sealed_records')
      .set({ updated_at: sql`now() - interval '1 day'` })
      .where('id', '=', 'old')
      .execute();
    expect(await store.sealed.prune('app-link', new Date(Date.now() - 3_600_000))).toBe(1);
    expect(await store.sealed.get('app-link', 'old')).toBeUndefined();
    expect(await store.sealed.get('app-link', 'new')).toBe('b');
    expect(await store.sealed.get('installation', 'old')).toBe('c');
  });

  it('a ciphertext copied under another id does not decrypt', async () => {
    const store = await open(fresh());
    await store.sealed.put('token', 'alice', {}, 'alice-secret');
    await store.sealed.put('token', 'mallory', {}, 'mine');
    const db = storeDatabase(store);
    const alice = await db
      .selectFrom('sealed_records')
      .select('secret')
      .where('id', '=', 'alice')
      .executeTakeFirstOrThrow();
    await db
      .updateTable('sealed_records')
      .set({ secret: alice.secret })
      .where('id', '=', 'mallory')
      .execute();
    await expect(store.sealed.get('token', 'mallory')).rejects.toBeInstanceOf(CredentialKeyError);
  });

  it('rotating the key re-encrypts sealed records too', async () => {
    const options = fresh();
    const oldKey = newKey();
    const before = await open({ ...options, env: { ASSISTANT_ENCRYPTION_KEY: oldKey } });
    await before.sealed.put('installation', 'T:T1', { workspace: 'T1' }, token);
    await before.credentials.put('T1', 'U_ALICE', 'github', 'ghp_alice');
    await before.close();
    const nextKey = newKey();
    const during = await open({ ...options, env: { ASSISTANT_ENCRYPTION_KEY: `${nextKey},${oldKey}` } });
    expect(await during.reencryptAll()).toBe(2);
    expect(await during.reencryptAll()).toBe(0);
    await during.close();
    const after = await open({ ...options, env: { ASSISTANT_ENCRYPTION_KEY: nextKey } });
    expect(await after.sealed.get('installation', 'T:T1')).toBe(token);
  });

  it('a sealed record no configured key reads refuses the start (the app would be deaf)', async () => {
    const options = fresh();
    const dropped = newKey();
    const kept = newKey();
    const writer = await open({ ...options, env: { ASSISTANT_ENCRYPTION_KEY: kept } });
    await writer.credentials.put('T1', 'U_ALICE', 'github', 'ghp_readable');
    await writer.close();
    const old = await open({ ...options, env: { ASSISTANT_ENCRYPTION_KEY: `${dropped},${kept}` } });
    await old.sealed.put('installation', 'T:T1', { workspace: 'T1' }, token);
    await old.close();
    await expect(open({ ...options, env: { ASSISTANT_ENCRYPTION_KEY: kept } })).rejects.toThrow(
      /1 sealed installation record\(s\) under key [0-9a-f]{12}: that key is not among the configured keys/,
    );
  });

  it('Slack installations stored before sealed records are readable as records of kind `installation`', async () => {
    const key = newKey();
    const options = { ...fresh(), env: { ASSISTANT_ENCRYPTION_KEY: key } };
    const keyring = new Keyring(keysFromVariable(key));
    // A database as the previous release left it: migrated up to 0002, one workspace install and one
    // org-wide install, each encrypted under `installation:<id>`.
    const { db, release } = await connectDatabase({
      dataDir: options.dataDir as string,
      ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}),
    });
    try {
      await migrate(db as never, { to: '0002_installations_and_event_claims' });
      for (const [id, team, enterprise, orgWide] of [
        ['T:T1', 'T1', 'E1', false],
        ['E:E2', null, 'E2', true],
      ] as const) {
        const { secret, keyId } = keyring.encrypt(`data of ${id}`, `installation:${id}`);
        await sql`insert into slack_installations (id, team_id, enterprise_id, is_enterprise_install, secret, key_id)
          values (${id}, ${team}, ${enterprise}, ${orgWide}, ${secret}, ${keyId})`.execute(db);
      }
    } finally {
      await db.destroy();
      release();
    }
    const store = await open(options);
    expect(await store.sealed.get('installation', 'T:T1')).toBe('data of T:T1');
    expect(await store.sealed.get('installation', 'E:E2')).toBe('data of E:E2');
    const rows = await storeDatabase(store)
      .selectFrom('sealed_records')
      .select(['id', 'workspace_id', 'organisation_id'])
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { id: 'E:E2', workspace_id: null, organisation_id: 'E2' },
      { id: 'T:T1', workspace_id: 'T1', organisation_id: 'E1' },
    ]);
    const tables = await sql<{ n: string }>`select count(*)::text as n from information_schema.tables
      where table_schema = current_schema() and table_name = 'slack_installations'`.execute(
      storeDatabase(store),
    );
    expect(tables.rows[0]?.n).toBe('0');
    // The workspace can then be deleted with everything of it, its installation included.
    await store.workspaces.delete('T1');
    expect(await store.sealed.get('installation', 'T:T1')).toBeUndefined();
  });
});
