import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
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
 * PGlite's settings for a store of a few thousand rows: PostgreSQL's defaults (128 MB of shared buffers)
 * size a server, and in WASM they stay resident.
 */
const smallFootprint = ['shared_buffers=2MB', 'wal_buffers=128kB', 'temp_buffers=800kB', 'max_connections=4'];

/** Runs PGlite's initdb for `folder` in a child process of this Node. */
async function initialiseInChild(folder: string): Promise<void> {
  const script = `const { PGlite } = await import(${JSON.stringify(import.meta.resolve('@electric-sql/pglite'))});
await (await PGlite.create(${JSON.stringify(folder)})).close();`;
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-2000);
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0)
    throw new Error(`could not create the embedded store in ${folder} (exit ${code}): ${stderr.trim()}`);
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
  // PGlite's 9 MB of WASM compiled by V8's optimising tier stays resident (about 75 MB); the baseline
  // compiler alone is plenty for a store of this size. Set before PGlite's module is compiled; this
  // process's other WebAssembly (undici's HTTP parser) is small and unaffected in practice.
  setFlagsFromString('--liftoff-only');
  const { PGlite } = await import('@electric-sql/pglite');
  const { pglitePool } = await import('./pglite-pool.js');
  const folder = join(options.dataDir, 'pglite');
  await mkdir(folder, { recursive: true });
  const release = lockDataDir(options.dataDir);
  try {
    // A new store is initialised in a short-lived child: initdb's memory (hundreds of MB of WASM) then
    // leaves with it instead of staying in the bot for good.
    if (!existsSync(join(folder, 'PG_VERSION'))) await initialiseInChild(folder);
    const database = await PGlite.create(folder, { postgresqlconf: smallFootprint });
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
