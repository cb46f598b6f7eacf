import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { type Kysely, sql } from 'kysely';
import { Coordination } from './coordination.js';
import { connectDatabase, type Engine } from './engines.js';
import { CredentialKeyError, type Keyring, keyFileName, loadKeyring } from './keyring.js';
import { type StoreLogger, silentStoreLogger } from './logger.js';
import { migrate } from './migrations.js';
import type { Database } from './schema.js';

/** Options of {@link openStore}. */
export interface StoreOptions {
  /** PostgreSQL connection string; without it the embedded PGlite is used. */
  databaseUrl?: string;
  /** Where PGlite's files and the embedded key file live (default: `.data/` at the repository root). */
  dataDir?: string;
  /** Where `ASSISTANT_ENCRYPTION_KEY` is read (default: process.env). */
  env?: NodeJS.ProcessEnv;
  logger?: StoreLogger;
  /** Most PostgreSQL connections at once (default 10); each answer in a thread holds one for its turn. */
  poolSize?: number;
}

/** A Slack app installation as stored: the fields to find it by, and the whole of it as JSON. */
export interface InstallationRecord {
  teamId?: string;
  enterpriseId?: string;
  isEnterpriseInstall: boolean;
  botUserId?: string;
  botId?: string;
  scopes?: string[];
  installerUserId?: string;
  /** The installation as the OAuth library gives it (tokens included), JSON; stored encrypted. */
  data: string;
}

/** Which installation: an org-wide one by its enterprise, else a workspace's by its team. */
export interface InstallationQuery {
  teamId?: string;
  enterpriseId?: string;
  isEnterpriseInstall: boolean;
}

/** The installation row's id for a query, or undefined when the query names nothing. */
export function installationId(query: InstallationQuery): string | undefined {
  if (query.isEnterpriseInstall) return query.enterpriseId ? `E:${query.enterpriseId}` : undefined;
  return query.teamId ? `T:${query.teamId}` : undefined;
}

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

/** `.data/` beside the nearest `pnpm-workspace.yaml` above `from`, else in `from`. */
export function defaultDataDir(from: string = process.cwd()): string {
  let folder = resolve(from);
  for (;;) {
    if (existsSync(join(folder, 'pnpm-workspace.yaml'))) return join(folder, '.data');
    const parent = dirname(folder);
    if (parent === folder) return join(resolve(from), '.data');
    folder = parent;
  }
}

const contextOf = (workspace: string, user: string, server: string) =>
  `credential:${workspace}:${user}:${server}`;

/** Marking a credential used more often than this would write on every turn. */
const lastUsedGranularityMs = 60_000;

/**
 * The assistant's database: workspaces, which catalog servers each has enabled, and each person's
 * credentials per server, encrypted with AES-256-GCM. Open with {@link openStore}.
 */
export class Store {
  private readonly pending = new Set<Promise<unknown>>();
  private closed = false;
  /** Event claims and thread turns across replicas. */
  readonly coordination: Coordination;

  constructor(
    readonly db: Kysely<Database>,
    readonly engine: Engine,
    private readonly keyring: Keyring,
    private readonly logger: StoreLogger,
    /** The embedded key file, when the keys came from one. */
    readonly keyFile?: string,
    /** Gives back the embedded store's DATA_DIR lock once closed. */
    private readonly release: () => void = () => {},
  ) {
    this.coordination = new Coordination(db, engine, logger);
  }

  /** Records a workspace (idempotent). */
  async ensureWorkspace(workspace: string, enterpriseId?: string): Promise<void> {
    await this.db
      .insertInto('workspaces')
      .values({ id: workspace, enterprise_id: enterpriseId ?? null })
      .onConflict((conflict) =>
        enterpriseId
          ? conflict.column('id').doUpdateSet({ enterprise_id: enterpriseId })
          : conflict.column('id').doNothing(),
      )
      .execute();
  }

  /** Stores (or replaces) a person's secret for a server, encrypted. */
  async putCredential(workspace: string, user: string, server: string, plain: string): Promise<void> {
    await this.ensureWorkspace(workspace);
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
  async deleteCredential(workspace: string, user: string, server: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('user_credentials')
      .where('workspace_id', '=', workspace)
      .where('user_id', '=', user)
      .where('server', '=', server)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** The servers a person has a credential for, with dates (never the secrets). */
  async listCredentials(workspace: string, user: string): Promise<CredentialInfo[]> {
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
  async credentialsOf(workspace: string, user: string): Promise<PersonCredentials> {
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

  /** The servers a workspace's admins enabled (true) or disabled (false); absent ones follow the catalog. */
  async serverSettings(workspace: string): Promise<Map<string, boolean>> {
    const rows = await this.db
      .selectFrom('workspace_servers')
      .select(['server', 'enabled'])
      .where('workspace_id', '=', workspace)
      .execute();
    return new Map(rows.map((row) => [row.server, row.enabled]));
  }

  /** An admin's choice to enable or disable a server in a workspace. */
  async setServerEnabled(workspace: string, server: string, enabled: boolean, by: string): Promise<void> {
    await this.ensureWorkspace(workspace);
    await this.db
      .insertInto('workspace_servers')
      .values({ workspace_id: workspace, server, enabled, changed_by: by })
      .onConflict((conflict) =>
        conflict
          .columns(['workspace_id', 'server'])
          .doUpdateSet({ enabled, changed_by: by, updated_at: sql`now()` }),
      )
      .execute();
  }

  /**
   * Deletes a workspace and everything stored for it: its installation, server settings, every
   * credential, its event claims.
   */
  async deleteWorkspace(workspace: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('user_credentials').where('workspace_id', '=', workspace).execute();
      await trx.deleteFrom('workspace_servers').where('workspace_id', '=', workspace).execute();
      await trx.deleteFrom('workspaces').where('id', '=', workspace).execute();
      await trx.deleteFrom('slack_installations').where('id', '=', `T:${workspace}`).execute();
      await trx
        .deleteFrom('event_claims')
        .where(sql<boolean>`starts_with(thread_key, ${`${workspace}:`})`)
        .execute();
    });
  }

  /**
   * Forgets an uninstalled app: an org-wide install takes its installation and every workspace of the
   * organisation with it; a workspace install, that workspace. Returns the workspaces deleted.
   */
  async forgetInstallation(query: InstallationQuery): Promise<string[]> {
    const workspaces = new Set<string>();
    // The event's own workspace goes in every case: under an org-wide install it is one of the org's.
    if (query.teamId) workspaces.add(query.teamId);
    if (query.isEnterpriseInstall && query.enterpriseId) {
      const rows = await this.db
        .selectFrom('workspaces')
        .select('id')
        .where('enterprise_id', '=', query.enterpriseId)
        .execute();
      for (const row of rows) workspaces.add(row.id);
      await this.db.deleteFrom('slack_installations').where('id', '=', `E:${query.enterpriseId}`).execute();
    }
    for (const workspace of workspaces) await this.deleteWorkspace(workspace);
    return [...workspaces];
  }

  /** Stores (or replaces) an installation, its tokens encrypted. */
  async saveInstallation(record: InstallationRecord): Promise<void> {
    const id = installationId(record);
    if (!id) throw new Error('an installation needs a team id (or an enterprise id for an org-wide install)');
    const { secret, keyId } = this.keyring.encrypt(record.data, `installation:${id}`);
    const fields = {
      team_id: record.teamId ?? null,
      enterprise_id: record.enterpriseId ?? null,
      is_enterprise_install: record.isEnterpriseInstall,
      bot_user_id: record.botUserId ?? null,
      bot_id: record.botId ?? null,
      scopes: record.scopes?.join(',') ?? null,
      installer_user_id: record.installerUserId ?? null,
      secret,
      key_id: keyId,
    };
    await this.db
      .insertInto('slack_installations')
      .values({ id, ...fields })
      .onConflict((conflict) => conflict.column('id').doUpdateSet({ ...fields, updated_at: sql`now()` }))
      .execute();
    if (record.teamId) await this.ensureWorkspace(record.teamId, record.enterpriseId);
  }

  /** The stored installation's JSON, decrypted; undefined when there is none. */
  async findInstallation(query: InstallationQuery): Promise<string | undefined> {
    const id = installationId(query);
    if (!id) return undefined;
    const row = await this.db
      .selectFrom('slack_installations')
      .select('secret')
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? this.keyring.decrypt(row.secret, `installation:${id}`, 'slack installation') : undefined;
  }

  /** Deletes an installation only (the workspace's other data stays); whether there was one. */
  async deleteInstallation(query: InstallationQuery): Promise<boolean> {
    const id = installationId(query);
    if (!id) return false;
    const result = await this.db.deleteFrom('slack_installations').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /**
   * Re-encrypts every credential not under the current key (the first configured); returns how many.
   * Each row is read and written in its own transaction, so a crash leaves every row readable.
   */
  async reencryptAll(): Promise<number> {
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
    const installations = await this.db
      .selectFrom('slack_installations')
      .select(['id', 'secret'])
      .where('key_id', '!=', this.keyring.currentId)
      .execute();
    for (const row of installations) {
      const context = `installation:${row.id}`;
      const { secret, keyId } = this.keyring.encrypt(
        this.keyring.decrypt(row.secret, context, 'slack installation'),
        context,
      );
      await this.db
        .updateTable('slack_installations')
        .set({ secret, key_id: keyId })
        .where('id', '=', row.id)
        .where('secret', '=', row.secret)
        .execute();
    }
    return rows.length + installations.length;
  }

  /** Throws when the database cannot be reached (for health checks). */
  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  /** Waits for background writes and closes the database. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.coordination.stop();
    await Promise.allSettled([...this.pending]);
    try {
      await this.db.destroy();
    } finally {
      this.release();
    }
  }

  private markUsed(workspace: string, user: string, servers: string[]): void {
    if (this.closed) return;
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

/**
 * Opens the store: PostgreSQL when `databaseUrl` is set (then `ASSISTANT_ENCRYPTION_KEY` is required),
 * else PGlite in `dataDir`; runs the migrations under a lock.
 */
export async function openStore(options: StoreOptions = {}): Promise<Store> {
  const logger = options.logger ?? silentStoreLogger;
  const dataDir = options.dataDir ?? defaultDataDir();
  const databaseUrl = options.databaseUrl?.trim() || undefined;
  const { keyring, keyFile } = await loadKeyring({
    env: options.env ?? process.env,
    dataDir,
    requireVariable: databaseUrl !== undefined,
    logger,
  });
  const { db, engine, release } = await connectDatabase({
    dataDir,
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(options.poolSize ? { poolSize: options.poolSize } : {}),
  });
  try {
    const applied = await migrate(db as unknown as Kysely<unknown>);
    if (applied.length > 0) logger.info({ engine, migrations: applied }, 'store migrated');
    await checkKeys(db, keyring, logger);
  } catch (error) {
    await db.destroy().catch(() => {});
    release();
    throw error;
  }
  return new Store(db, engine, keyring, logger, keyFile, release);
}

/**
 * Refuses a store whose rows were encrypted with a key that is not configured (a changed
 * ASSISTANT_ENCRYPTION_KEY): started anyway, the bot would acknowledge every event and answer none.
 */
async function checkKeys(db: Kysely<Database>, keyring: Keyring, logger: StoreLogger): Promise<void> {
  const tables = [
    ['user_credentials', 'stored credential'],
    ['slack_installations', 'Slack installation'],
  ] as const;
  const used = (
    await Promise.all(
      tables.map(async ([table, kind]) =>
        (
          await db
            .selectFrom(table)
            .select(['key_id', sql<string>`count(*)::text`.as('count')])
            .groupBy('key_id')
            .execute()
        ).map((row) => ({ ...row, kind })),
      ),
    )
  ).flat();
  const unknown = used.filter((row) => !keyring.knows(row.key_id));
  if (unknown.length === 0) return;
  const what = unknown.map((row) => `${row.count} ${row.kind}(s) under key ${row.key_id}`).join(', ');
  const credentials = used.filter((row) => row.kind === 'stored credential');
  // Refused when the bot would be deaf: an installation it cannot read, or not one credential readable.
  // A few credentials under a key dropped on purpose only ask those people to connect again.
  const deaf =
    unknown.some((row) => row.kind === 'Slack installation') ||
    (credentials.length > 0 && credentials.every((row) => !keyring.knows(row.key_id)));
  if (!deaf) {
    logger.warn(
      { unreadable: what },
      'some stored credentials were encrypted with a key that is not configured; those people must connect again',
    );
    return;
  }
  throw new Error(
    `${what}: that key is not among the configured keys (ASSISTANT_ENCRYPTION_KEY, or ${keyFileName} in DATA_DIR), so the bot could read none of them. Put the key back (several keys: comma-separated, newest first), or, to start over, delete those rows`,
  );
}

/** The store could not be opened (bad key, unreachable database, failed migration); the message says which. */
export class StoreStartError extends Error {
  override name = 'StoreStartError';
}

/** The secrets in the store's settings (the database password), for an app's redactor. */
export function storeSecrets(env: NodeJS.ProcessEnv): string[] {
  const url = env.DATABASE_URL?.trim();
  if (!url) return [];
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password ? [password] : [];
  } catch {
    return [];
  }
}

/**
 * Opens the store as the apps do: `DATABASE_URL` (PostgreSQL) or PGlite in `DATA_DIR` (default `.data/`
 * at the repository root), keys from `ASSISTANT_ENCRYPTION_KEY` or the key file. Failures are
 * {@link StoreStartError}s whose message starts with "store: ".
 */
export async function openStoreFromEnvironment(
  env: NodeJS.ProcessEnv,
  logger?: StoreLogger,
  options: Pick<StoreOptions, 'poolSize'> = {},
): Promise<Store> {
  const databaseUrl = env.DATABASE_URL?.trim();
  try {
    return await openStore({
      ...options,
      env,
      dataDir: env.DATA_DIR?.trim() || defaultDataDir(),
      ...(databaseUrl ? { databaseUrl } : {}),
      ...(logger ? { logger } : {}),
    });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    // A connection error may quote the URL; its password never leaves.
    const safe = storeSecrets(env).reduce((text, secret) => text.replaceAll(secret, '[REDACTED]'), detail);
    throw new StoreStartError(`store: ${safe}`, { cause: error });
  }
}
