import type { PGlite } from '@electric-sql/pglite';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';

type Command = PostgresQueryResult<unknown>['command'];

/** The statement's command, which PGlite does not report but Kysely reads to count affected rows. */
function commandOf(text: string): Command {
  const word = /^\s*(?:with\b[\s\S]*?\)\s*)?(\w+)/i.exec(text)?.[1]?.toUpperCase();
  switch (word) {
    case 'INSERT':
    case 'UPDATE':
    case 'DELETE':
    case 'MERGE':
    case 'COMMIT':
    case 'ROLLBACK':
      return word;
    default:
      return 'SELECT';
  }
}

/**
 * PGlite is one connection in this process; Kysely's PostgreSQL dialect expects a pool. This pool lends
 * that one connection to one borrower at a time, so a transaction never interleaves with another query.
 */
export function pglitePool(database: PGlite): PostgresPool {
  let queue: Promise<void> = Promise.resolve();
  const client = (release: () => void): PostgresPoolClient =>
    ({
      async query(text: string, parameters: ReadonlyArray<unknown>) {
        const result = await database.query(text, [...parameters]);
        return {
          command: commandOf(text),
          rowCount: result.affectedRows ?? result.rows.length,
          rows: result.rows,
        };
      },
      release,
    }) as PostgresPoolClient;
  return {
    options: {},
    connect() {
      let release!: () => void;
      const turn = new Promise<void>((resolve) => {
        release = resolve;
      });
      const ready = queue;
      queue = queue.then(() => turn);
      return ready.then(() => client(release));
    },
    async end() {
      await queue;
      await database.close();
    },
  };
}
