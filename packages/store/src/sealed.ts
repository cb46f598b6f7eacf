import { type Kysely, sql } from 'kysely';
import type { Keyring } from './keyring.js';
import type { Database } from './schema.js';

/** Whose a sealed record is: it is deleted with its workspace. */
export interface SealedOwner {
  workspace?: string;
  organisation?: string;
}

/** Encrypted under `<kind>:<id>`: a row copied under another kind or id does not decrypt. */
const contextOf = (kind: string, id: string) => `${kind}:${id}`;

/**
 * Records an app keeps encrypted (an installation and its tokens, say), by kind and id. The store
 * knows whose each one is, never what it holds or how the app names it.
 */
export class SealedRecords {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly keyring: Keyring,
  ) {}

  /** Stores (or replaces) a record, encrypted. */
  async put(kind: string, id: string, owner: SealedOwner, plain: string): Promise<void> {
    const { secret, keyId } = this.keyring.encrypt(plain, contextOf(kind, id));
    const fields = {
      workspace_id: owner.workspace ?? null,
      organisation_id: owner.organisation ?? null,
      secret,
      key_id: keyId,
    };
    await this.db
      .insertInto('sealed_records')
      .values({ kind, id, ...fields })
      .onConflict((conflict) =>
        conflict.columns(['kind', 'id']).doUpdateSet({ ...fields, updated_at: sql`now()` }),
      )
      .execute();
  }

  /**
   * A record decrypted; undefined when there is none. A record the keys cannot open throws
   * `CredentialKeyError` naming `<kind>:<id>`.
   */
  async get(kind: string, id: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('sealed_records')
      .select('secret')
      .where('kind', '=', kind)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? this.keyring.decrypt(row.secret, contextOf(kind, id), contextOf(kind, id)) : undefined;
  }

  /** Every record of a kind that belongs to a workspace, decrypted, by id. */
  async list(kind: string, workspace: string): Promise<Array<{ id: string; value: string }>> {
    const rows = await this.db
      .selectFrom('sealed_records')
      .select(['id', 'secret'])
      .where('kind', '=', kind)
      .where('workspace_id', '=', workspace)
      .orderBy('id')
      .execute();
    return rows.map((row) => ({
      id: row.id,
      value: this.keyring.decrypt(row.secret, contextOf(kind, row.id), contextOf(kind, row.id)),
    }));
  }

  /** Deletes a record; whether there was one. */
  async delete(kind: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('sealed_records')
      .where('kind', '=', kind)
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** Deletes the records of a kind not written since `before` (short-lived links, sessions); how many. */
  async prune(kind: string, before: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('sealed_records')
      .where('kind', '=', kind)
      .where('updated_at', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Re-encrypts every record not under the current key, each on its own; returns how many. */
  async reencrypt(): Promise<number> {
    const rows = await this.db
      .selectFrom('sealed_records')
      .select(['kind', 'id', 'secret'])
      .where('key_id', '!=', this.keyring.currentId)
      .execute();
    for (const row of rows) {
      const context = contextOf(row.kind, row.id);
      const { secret, keyId } = this.keyring.encrypt(
        this.keyring.decrypt(row.secret, context, context),
        context,
      );
      await this.db
        .updateTable('sealed_records')
        .set({ secret, key_id: keyId })
        .where('kind', '=', row.kind)
        .where('id', '=', row.id)
        .where('secret', '=', row.secret)
        .execute();
    }
    return rows.length;
  }
}
