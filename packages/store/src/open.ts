import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { HostError, type Logger, silentLogger } from '@ai-assistant/chat-types';
import { type Kysely, sql } from 'kysely';
import { connectDatabase } from './engines.js';
import { type Keyring, keyFileName, loadKeyring } from './keyring.js';
import { migrate } from './migrations.js';
import type { Database } from './schema.js';
import { Store } from './store.js';

/** Options of {@link openStore}. */
export interface StoreOptions {
  /** PostgreSQL connection string; without it the embedded PGlite is used. */
  databaseUrl?: string;
  /** Where PGlite's files and the embedded key file live (default: `.data/` at the repository root). */
  dataDir?: string;
  /** Where `ASSISTANT_ENCRYPTION_KEY` is read (default: process.env). */
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** Most PostgreSQL connections at once (default 10); each answer in a thread holds one for its turn. */
  poolSize?: number;
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

/**
 * Opens the store: PostgreSQL when `databaseUrl` is set (then `ASSISTANT_ENCRYPTION_KEY` is required),
 * else PGlite in `dataDir`; runs the migrations under a lock.
 */
export async function openStore(options: StoreOptions = {}): Promise<Store> {
  const logger = options.logger ?? silentLogger;
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

/** How many rows of one kind are under one key. */
interface KeyUse {
  key_id: string;
  count: string;
  /** What they are, for the message: `stored credential`, `sealed installation record`. */
  what: string;
  sealed: boolean;
}

/**
 * Refuses a store whose rows were encrypted with a key that is not configured (a changed
 * ASSISTANT_ENCRYPTION_KEY): started anyway, the bot would acknowledge every event and answer none.
 */
async function checkKeys(db: Kysely<Database>, keyring: Keyring, logger: Logger): Promise<void> {
  const [credentials, sealed] = await Promise.all([
    db
      .selectFrom('user_credentials')
      .select(['key_id', sql<string>`count(*)::text`.as('count')])
      .groupBy('key_id')
      .execute(),
    db
      .selectFrom('sealed_records')
      .select(['kind', 'key_id', sql<string>`count(*)::text`.as('count')])
      .groupBy(['kind', 'key_id'])
      .execute(),
  ]);
  const used: KeyUse[] = [
    ...credentials.map((row) => ({ ...row, what: 'stored credential', sealed: false })),
    ...sealed.map((row) => ({ ...row, what: `sealed ${row.kind} record`, sealed: true })),
  ];
  const unknown = used.filter((row) => !keyring.knows(row.key_id));
  if (unknown.length === 0) return;
  const what = unknown.map((row) => `${row.count} ${row.what}(s) under key ${row.key_id}`).join(', ');
  const personal = used.filter((row) => !row.sealed);
  // Refused when the bot would be deaf: a sealed record (an app's installation) it cannot read, or not
  // one credential readable. A few credentials under a key dropped on purpose only ask those people
  // to connect again.
  const deaf =
    unknown.some((row) => row.sealed) ||
    (personal.length > 0 && personal.every((row) => !keyring.knows(row.key_id)));
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
export class StoreStartError extends HostError {
  override name = 'StoreStartError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('STORE_START_FAILED', message, options);
  }
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
  logger?: Logger,
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
