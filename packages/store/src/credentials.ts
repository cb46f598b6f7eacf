import type { Logger } from '@ai-assistant/chat-types';
import { type Kysely, sql } from 'kysely';
import { CredentialKeyError, type Keyring } from './keyring.js';
import type { Database } from './schema.js';
import type { WorkspaceSettings } from './workspaces.js';

/** One stored credential, without its secret. */
export interface CredentialInfo {
  server: string;
  createdAt: Date;
  updatedAt: Date;
  lastUsedAt: Date | null;
}

/** A person's credentials for a turn: what could be read, and what could not (with why). */
export interface PersonCredentials {
  /** Server name → secret. */
  secrets: Record<string, string>;
  unreadable: CredentialKeyError[];
}

const contextOf = (workspace: string, user: string, server: string) =>
  `credential:${workspace}:${user}:${server}`;

/** Marking a credential used more often than this would write on every turn. */
const lastUsedGranularityMs = 60_000;

/**
 * Each person's secret per server and workspace, encrypted with AES-256-GCM and bound to whose it is:
 * a ciphertext copied onto another person does not decrypt.
 */
export class Credentials {
  private readonly pending = new Set<Promise<unknown>>();
  private stopped = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly keyring: Keyring,
    private readonly workspaces: WorkspaceSettings,
    private readonly logger: Logger,
  ) {}

  /** Stores (or replaces) a person's secret for a server, encrypted. */
  async put(workspace: string, user: string, server: string, plain: string): Promise<void> {
    await this.workspaces.ensure(workspace);
    const { secret, keyId } = this.keyring.encrypt(plain, contextOf(workspace, user, server));
    await this.db
      .insertInto('user_credentials')
      .values({ workspace_id: workspace, user_id: user, server, secret, key_id: keyId })
      .onConflict((conflict) =>
        conflict
          .columns(['workspace_id', 'user_id', 'server'])
          .doUpdateSet({ secret, key_id: keyId, updated_at: sql`now()`, last_used_at: null }),
      )
      .execute();
  }

  /** Deletes a person's secret for a server; whether there was one. */
  async delete(workspace: string, user: string, server: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('user_credentials')
      .where('workspace_id', '=', workspace)
      .where('user_id', '=', user)
      .where('server', '=', server)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** The people of a workspace who hold a credential for a server (its removal revokes theirs). */
  async holders(workspace: string, server: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('user_credentials')
      .select('user_id')
      .where('workspace_id', '=', workspace)
      .where('server', '=', server)
      .orderBy('user_id')
      .execute();
    return rows.map((row) => row.user_id);
  }

  /** Deletes every person's credential for a server of a workspace (it was removed); how many. */
  async deleteServer(workspace: string, server: string): Promise<number> {
    const result = await this.db
      .deleteFrom('user_credentials')
      .where('workspace_id', '=', workspace)
      .where('server', '=', server)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** The servers a person has a credential for, with dates (never the secrets). */
  async list(workspace: string, user: string): Promise<CredentialInfo[]> {
    const rows = await this.db
      .selectFrom('user_credentials')
      .select(['server', 'created_at', 'updated_at', 'last_used_at'])
      .where('workspace_id', '=', workspace)
      .where('user_id', '=', user)
      .orderBy('server')
      .execute();
    return rows.map((row) => ({
      server: row.server,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      lastUsedAt: row.last_used_at,
    }));
  }

  /**
   * Every secret of one person in one workspace, decrypted, for one turn. A row the keys cannot open
   * is reported (naming its server), never returned. Marks them used (at most once a minute, after the answer).
   */
  async of(workspace: string, user: string): Promise<PersonCredentials> {
    const rows = await this.db
      .selectFrom('user_credentials')
      .select(['server', 'secret', 'last_used_at'])
      .where('workspace_id', '=', workspace)
      .where('user_id', '=', user)
      .execute();
    const secrets: Record<string, string> = {};
    const unreadable: CredentialKeyError[] = [];
    for (const row of rows) {
      try {
        secrets[row.server] = this.keyring.decrypt(
          row.secret,
          contextOf(workspace, user, row.server),
          row.server,
        );
      } catch (error) {
        if (!(error instanceof CredentialKeyError)) throw error;
        unreadable.push(error);
        this.logger.error({ workspace, user, server: row.server }, error.message);
      }
    }
    const stale = rows.filter(
      (row) => !row.last_used_at || Date.now() - row.last_used_at.getTime() > lastUsedGranularityMs,
    );
    if (stale.length > 0)
      this.markUsed(
        workspace,
        user,
        stale.map((row) => row.server),
      );
    return { secrets, unreadable };
  }

  /**
   * Re-encrypts every credential not under the current key; returns how many. Each row is read and
   * written on its own, so a crash leaves every row readable.
   */
  async reencrypt(): Promise<number> {
    const rows = await this.db
      .selectFrom('user_credentials')
      .select(['workspace_id', 'user_id', 'server', 'secret'])
      .where('key_id', '!=', this.keyring.currentId)
      .execute();
    for (const row of rows) {
      const context = contextOf(row.workspace_id, row.user_id, row.server);
      const plain = this.keyring.decrypt(row.secret, context, row.server);
      const { secret, keyId } = this.keyring.encrypt(plain, context);
      await this.db
        .updateTable('user_credentials')
        .set({ secret, key_id: keyId })
        .where('workspace_id', '=', row.workspace_id)
        .where('user_id', '=', row.user_id)
        .where('server', '=', row.server)
        .where('secret', '=', row.secret)
        .execute();
    }
    return rows.length;
  }

  /** Stops background writes and waits for the ones under way (before the database closes). */
  async settle(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.pending]);
  }

  private markUsed(workspace: string, user: string, servers: string[]): void {
    if (this.stopped) return;
    const write = this.db
      .updateTable('user_credentials')
      .set({ last_used_at: sql`now()` })
      .where('workspace_id', '=', workspace)
      .where('user_id', '=', user)
      .where('server', 'in', servers)
      .execute()
      .catch((error: unknown) =>
        this.logger.warn(
          { workspace, error: String(error) },
          'could not record when credentials were last used',
        ),
      )
      .finally(() => this.pending.delete(write));
    this.pending.add(write);
  }
}
