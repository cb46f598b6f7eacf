import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import { lockDataDir } from './data-dir-lock.js';
import type { Database } from './schema.js';

/** Which database the store runs on. */
export type Engine = 'pglite' | 'postgres';

/** A connected database and how to close it. */
export interface Connected {
  db: Kysely<Database>;
  engine: Engine;
  /** Gives back what the engine holds beside the connection (the embedded store's DATA_DIR lock). */
  release: () => void;
}

/**
 * PostgreSQL through `pg` when a URL is given (production, replicas), else PGlite with its files in
 * `DATA_DIR/pglite`. Both load only when chosen.
 */
export async function connectDatabase(options: {
  databaseUrl?: string;
  dataDir: string;
  poolSize?: number;
}): Promise<Connected> {
  if (options.databaseUrl) {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 5000,
    });
    // An idle client that loses its server must not take the process down.
    pool.on('error', () => {});
    // Nor one that loses it while lent out (a held lock's connection when the server restarts): the
    // query in flight fails, which its caller handles.
    pool.on('connect', (client) => client.on('error', () => {}));
    return {
      db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }),
      engine: 'postgres',
      release: () => {},
    };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const { pglitePool } = await import('./pglite-pool.js');
  const folder = join(options.dataDir, 'pglite');
  await mkdir(folder, { recursive: true });
  const release = lockDataDir(options.dataDir);
  try {
    const database = await PGlite.create(folder);
    return {
      db: new Kysely<Database>({ dialect: new PostgresDialect({ pool: pglitePool(database) }) }),
      engine: 'pglite',
      release,
    };
  } catch (error) {
    release();
    throw error;
  }
}
