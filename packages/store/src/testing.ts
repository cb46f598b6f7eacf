// For tests of this package and of the apps: never used by the running app.
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';
import { databaseOf, type Store } from './store.js';

export type { Database } from './schema.js';

/** The store's database itself, for a test that must look at (or tamper with) rows directly. */
export function storeDatabase(store: Store): Kysely<Database> {
  return databaseOf(store);
}

/** Every row of every table of the store that mentions `text` anywhere, as `table: row` (JSON). */
export async function rowsMentioning(store: Store, text: string): Promise<string[]> {
  const db = databaseOf(store);
  const tables = await sql<{ table_name: string }>`
    select table_name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db);
  const found: string[] = [];
  for (const { table_name } of tables.rows) {
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table_name)}`.execute(db);
    for (const row of rows.rows)
      if (JSON.stringify(row).includes(text)) found.push(`${table_name}: ${JSON.stringify(row)}`);
  }
  return found;
}
