import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  embeddedStoreFolder,
  postgresBinaries,
  startPostgres,
  type TestPostgres,
} from '@ai-assistant/test-kit';
import { afterAll, beforeAll, describe } from 'vitest';
import { newKey, openStore, type Store, type StoreOptions } from '../src/index.js';

/** What a store test gets: a way to open stores on one fresh database of its engine. */
export interface EngineFixture {
  engine: 'pglite' | 'postgres';
  /** Options for a new, empty database (a PGlite folder, or a PostgreSQL database) and its key. */
  fresh(): StoreOptions;
  open(options: StoreOptions): Promise<Store>;
}

const platformSkip = '(platform skip: no initdb or pg_ctl on this machine)';

/**
 * Runs `body` once on PGlite and once on a real PostgreSQL started for this file. Where the machine
 * has no PostgreSQL, the second half is skipped with a title saying so.
 */
export function onBothEngines(title: string, body: (fixture: EngineFixture) => void): void {
  const stores: Store[] = [];
  const folders: string[] = [];
  const open = async (options: StoreOptions) => {
    const store = await openStore(options);
    stores.push(store);
    return store;
  };
  const closeAll = async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  };

  describe(`${title} on PGlite`, () => {
    afterAll(async () => {
      await closeAll();
      for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
    });
    body({
      engine: 'pglite',
      fresh() {
        const dataDir = embeddedStoreFolder();
        folders.push(dataDir);
        return { dataDir, env: {} };
      },
      open,
    });
  });

  const hasPostgres = postgresBinaries() !== undefined;
  (hasPostgres ? describe : describe.skip)(
    hasPostgres ? `${title} on PostgreSQL` : `${title} on PostgreSQL ${platformSkip}`,
    () => {
      let postgres: TestPostgres | undefined;
      beforeAll(async () => {
        postgres = await startPostgres();
      }, 120_000);
      afterAll(async () => {
        await closeAll();
        postgres?.stop();
      });
      body({
        engine: 'postgres',
        fresh() {
          if (!postgres) throw new Error('PostgreSQL did not start');
          const dataDir = mkdtempSync(join(tmpdir(), 'store-'));
          folders.push(dataDir);
          return {
            databaseUrl: postgres.newDatabase(),
            dataDir,
            env: { ASSISTANT_ENCRYPTION_KEY: newKey() },
          };
        },
        open,
      });
    },
  );
}
