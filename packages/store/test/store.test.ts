import { statSync } from 'node:fs';
import { join } from 'node:path';
import { recordingLogger } from '@ai-assistant/test-kit';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { CredentialKeyError, keyFileName, newKey, openStore } from '../src/index.js';
import { migrationNames } from '../src/migrations.js';
import { rowsMentioning, storeDatabase } from '../src/testing.js';
import { onBothEngines } from './engines.js';

const secret = 'ghp_personalSecretOfAlice_1234567890';

onBothEngines('store', ({ engine, fresh, open }) => {
  it('migrates once, idempotently, even when two processes start together', async () => {
    const options = fresh();
    // PGlite is one process's database (a second opener is refused while the first is open), so it is
    // opened again after closing; on PostgreSQL two stores start at the same moment.
    const closedFirst = async () => {
      const store = await open(options);
      await store.close();
      return store;
    };
    const [first, second] =
      engine === 'postgres'
        ? await Promise.all([open(options), open(options)])
        : [await closedFirst(), await open(options)];
    const applied = await sql<{
      count: string;
    }>`select count(*)::text as count from store_migrations`.execute(storeDatabase(second));
    expect(applied.rows[0]?.count).toBe(String(migrationNames().length));
    if (engine === 'postgres') await first.ping();
    await second.ping();
    expect(first.engine).toBe(engine);
  });

  it('keeps a credential per (workspace, user, server), encrypted at rest', async () => {
    const store = await open(fresh());
    await store.credentials.put('T1', 'U_ALICE', 'github', secret);
    await store.credentials.put('T1', 'U_ALICE', 'jira', 'jira-alice');
    await store.credentials.put('T1', 'U_BOB', 'github', 'ghp_bob');
    await store.credentials.put('T2', 'U_ALICE', 'github', 'ghp_alice_in_T2');

    expect((await store.credentials.of('T1', 'U_ALICE')).secrets).toEqual({
      github: secret,
      jira: 'jira-alice',
    });
    expect((await store.credentials.of('T1', 'U_BOB')).secrets).toEqual({ github: 'ghp_bob' });
    expect((await store.credentials.of('T2', 'U_ALICE')).secrets).toEqual({ github: 'ghp_alice_in_T2' });
    expect((await store.credentials.of('T2', 'U_BOB')).secrets).toEqual({});

    const rows = await storeDatabase(store).selectFrom('user_credentials').select(['secret']).execute();
    for (const row of rows) {
      expect(row.secret).not.toContain('ghp_');
      expect(row.secret).toMatch(/^v1\.[0-9a-f]{12}\./);
    }
    const listed = await store.credentials.list('T1', 'U_ALICE');
    expect(listed.map((entry) => entry.server)).toEqual(['github', 'jira']);
    expect(JSON.stringify(listed)).not.toContain(secret);

    await store.credentials.put('T1', 'U_ALICE', 'github', 'ghp_replaced');
    expect((await store.credentials.of('T1', 'U_ALICE')).secrets.github).toBe('ghp_replaced');
    expect(await store.credentials.delete('T1', 'U_ALICE', 'github')).toBe(true);
    expect(await store.credentials.delete('T1', 'U_ALICE', 'github')).toBe(false);
    expect((await store.credentials.of('T1', 'U_ALICE')).secrets).toEqual({ jira: 'jira-alice' });
  });

  it('a ciphertext copied onto another person does not decrypt', async () => {
    const store = await open(fresh());
    await store.credentials.put('T1', 'U_ALICE', 'github', secret);
    await store.credentials.put('T1', 'U_MALLORY', 'github', 'mine');
    const alice = await storeDatabase(store)
      .selectFrom('user_credentials')
      .select('secret')
      .where('user_id', '=', 'U_ALICE')
      .executeTakeFirstOrThrow();
    await storeDatabase(store)
      .updateTable('user_credentials')
      .set({ secret: alice.secret })
      .where('user_id', '=', 'U_MALLORY')
      .execute();
    const mallory = await store.credentials.of('T1', 'U_MALLORY');
    expect(mallory.secrets).toEqual({});
    expect(mallory.unreadable[0]?.server).toBe('github');
  });

  it('workspace server settings: enable and disable, per workspace', async () => {
    const store = await open(fresh());
    expect(await store.workspaces.settings('T1')).toEqual(new Map());
    await store.workspaces.setEnabled('T1', 'github', false, 'U_ADMIN');
    await store.workspaces.setEnabled('T1', 'weather', true, 'U_ADMIN');
    await store.workspaces.setEnabled('T1', 'github', true, 'U_ADMIN');
    await store.workspaces.setEnabled('T2', 'weather', false, 'U_OTHER_ADMIN');
    expect(await store.workspaces.settings('T1')).toEqual(
      new Map([
        ['github', true],
        ['weather', true],
      ]),
    );
    expect(await store.workspaces.settings('T2')).toEqual(new Map([['weather', false]]));
  });

  it('deleting a workspace leaves nothing of it in any table', async () => {
    const store = await open(fresh());
    await store.credentials.put('T_GONE', 'U_ALICE', 'github', secret);
    await store.workspaces.setEnabled('T_GONE', 'github', false, 'U_ADMIN');
    await store.sealed.put(
      'installation',
      'one',
      { workspace: 'T_GONE', organisation: 'E1' },
      'sealed-of-T_GONE',
    );
    await store.coordination.claim({
      id: 'Ev1',
      workspace: 'T_GONE',
      thread: 'key-of-T_GONE',
      order: 1_000_100,
    });
    await store.credentials.put('T_KEPT', 'U_ALICE', 'github', 'kept');
    await store.sealed.put('installation', 'two', { workspace: 'T_KEPT' }, 'sealed-of-T_KEPT');
    await store.coordination.claim({
      id: 'Ev2',
      workspace: 'T_KEPT',
      thread: 'key-of-T_KEPT',
      order: 1_000_100,
    });
    await store.workspaces.delete('T_GONE');
    expect(await rowsMentioning(store, 'T_GONE')).toEqual([]);
    expect(await rowsMentioning(store, 'key-of-T_GONE')).toEqual([]);
    expect(await store.sealed.get('installation', 'one')).toBeUndefined();
    expect((await store.credentials.of('T_KEPT', 'U_ALICE')).secrets).toEqual({ github: 'kept' });
    expect(await store.sealed.get('installation', 'two')).toBe('sealed-of-T_KEPT');
    // Found by its thread key: a short id like "Ev2" can turn up by chance inside a ciphertext.
    expect(await rowsMentioning(store, 'key-of-T_KEPT')).toHaveLength(1);
  });

  it('workspaces of an organisation are found by it', async () => {
    const store = await open(fresh());
    await store.workspaces.ensure('T_B', 'E1');
    await store.workspaces.ensure('T_A');
    await store.workspaces.ensure('T_A', 'E1');
    await store.workspaces.ensure('T_A');
    await store.workspaces.ensure('T_OTHER', 'E2');
    expect(await store.workspaces.inOrganisation('E1')).toEqual(['T_A', 'T_B']);
    expect(await store.workspaces.inOrganisation('E_NONE')).toEqual([]);
  });

  it('a wrong key is a clear error naming the server, never garbage', async () => {
    const options = fresh();
    const dropped = newKey();
    const kept = newKey();
    const writer = await open({ ...options, env: { ASSISTANT_ENCRYPTION_KEY: dropped } });
    await writer.credentials.put('T1', 'U_ALICE', 'github', secret);
    await writer.close();
    const second = await open({ ...options, env: { ASSISTANT_ENCRYPTION_KEY: `${kept},${dropped}` } });
    await second.credentials.put('T1', 'U_BOB', 'github', 'ghp_bob_readable');
    await second.close();
    // The old key dropped on purpose: the bot starts (Bob's is readable); Alice must connect again.
    const log = recordingLogger();
    const reader = await open({ ...options, env: { ASSISTANT_ENCRYPTION_KEY: kept }, logger: log });
    expect((await reader.credentials.of('T1', 'U_BOB')).secrets).toEqual({ github: 'ghp_bob_readable' });
    const found = await reader.credentials.of('T1', 'U_ALICE');
    expect(found.secrets).toEqual({});
    expect(found.unreadable).toHaveLength(1);
    expect(found.unreadable[0]).toBeInstanceOf(CredentialKeyError);
    expect(found.unreadable[0]?.message).toMatch(
      /credential for server "github" cannot be read: it was encrypted with key [0-9a-f]{12}, which is not among the configured keys/,
    );
    expect(JSON.stringify(log.lines)).toContain('"github"');
    expect(JSON.stringify(log.lines)).not.toContain(secret);
  });

  it('a store none of whose credentials the configured key can read refuses to open, naming the key (hardening 27.9)', async () => {
    const options = fresh();
    const writer = await open({ ...options, env: { ASSISTANT_ENCRYPTION_KEY: newKey() } });
    await writer.credentials.put('T1', 'U_ALICE', 'github', secret);
    await writer.credentials.put('T1', 'U_BOB', 'jira', 'jira-bob-secret');
    await writer.close();
    // Before: it opened, and every turn went on without anyone's credential (the bot answered, deaf).
    await expect(open({ ...options, env: { ASSISTANT_ENCRYPTION_KEY: newKey() } })).rejects.toThrow(
      /2 stored credential\(s\) under key [0-9a-f]{12}: that key is not among the configured keys \(ASSISTANT_ENCRYPTION_KEY/,
    );
  });

  it('rotates: a second key in front, re-encrypt, then the old key can go', async () => {
    const options = fresh();
    const oldKey = newKey();
    const nextKey = newKey();
    const before = await open({ ...options, env: { ASSISTANT_ENCRYPTION_KEY: oldKey } });
    await before.credentials.put('T1', 'U_ALICE', 'github', secret);
    await before.credentials.put('T1', 'U_BOB', 'jira', 'jira-bob');
    await before.close();

    const during = await open({ ...options, env: { ASSISTANT_ENCRYPTION_KEY: `${nextKey},${oldKey}` } });
    expect((await during.credentials.of('T1', 'U_ALICE')).secrets.github).toBe(secret);
    expect(await during.reencryptAll()).toBe(2);
    expect(await during.reencryptAll()).toBe(0);
    await during.close();

    const after = await open({ ...options, env: { ASSISTANT_ENCRYPTION_KEY: nextKey } });
    expect((await after.credentials.of('T1', 'U_ALICE')).secrets).toEqual({ github: secret });
    expect((await after.credentials.of('T1', 'U_BOB')).secrets).toEqual({ jira: 'jira-bob' });
  });

  if (engine === 'postgres') {
    it('with DATABASE_URL, a missing key is a start-up error naming the variable', async () => {
      const options = fresh();
      await expect(openStore({ ...options, env: {} })).rejects.toThrow(/ASSISTANT_ENCRYPTION_KEY is not set/);
    });
  } else {
    it('without a key, the embedded default makes a key file with mode 0600 and says where, once', async () => {
      const options = fresh();
      const log = recordingLogger();
      const store = await open({ ...options, logger: log });
      const keyFile = join(options.dataDir as string, keyFileName);
      expect(store.keyFile).toBe(keyFile);
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      await store.credentials.put('T1', 'U_ALICE', 'github', secret);
      await store.close();
      const again = await open({ ...options, logger: log });
      expect((await again.credentials.of('T1', 'U_ALICE')).secrets.github).toBe(secret);
      expect(log.lines.filter((line) => line.message.includes('created the encryption key'))).toHaveLength(1);
    });
  }

  it('a malformed key names the variable and how to make one', async () => {
    await expect(openStore({ ...fresh(), env: { ASSISTANT_ENCRYPTION_KEY: 'c2hvcnQ=' } })).rejects.toThrow(
      /ASSISTANT_ENCRYPTION_KEY: a key decodes to 5 bytes; each key must be 32 random bytes in base64 \(make one with: openssl rand -base64 32\)/,
    );
  });
});
