import { type Kysely, sql } from 'kysely';
import { type Migration, Migrator } from 'kysely/migration';
import { earlyMigrations } from './early-migrations.js';

/**
 * The schema, written once for PostgreSQL (PGlite is PostgreSQL too). Never edit a migration that has
 * shipped: add the next one.
 */
const migrations: Record<string, Migration> = {
  ...earlyMigrations,
  '0005_conversations': {
    async up(db: Kysely<unknown>) {
      // The threads an app takes part in, and what was said there: people's messages and final answers,
      // never tool steps. Keys are the app's own (its thread's key, its message's id).
      await db.schema
        .createTable('conversation_threads')
        .addColumn('workspace_id', 'text', (column) => column.notNull())
        .addColumn('thread_key', 'text', (column) => column.notNull())
        // Whether what was said before the app joined has been read from the source.
        .addColumn('history_read', 'boolean', (column) => column.notNull())
        .addColumn('last_at', 'timestamptz', (column) => column.notNull())
        .addPrimaryKeyConstraint('conversation_threads_pk', ['workspace_id', 'thread_key'])
        .execute();
      await db.schema
        .createIndex('conversation_threads_age')
        .on('conversation_threads')
        .column('last_at')
        .execute();
      await db.schema
        .createTable('conversation_messages')
        .addColumn('workspace_id', 'text', (column) => column.notNull())
        .addColumn('thread_key', 'text', (column) => column.notNull())
        .addColumn('message_id', 'text', (column) => column.notNull())
        // user or assistant
        .addColumn('role', 'text', (column) => column.notNull())
        // The writer of a user message; the asker an answer was for.
        .addColumn('person_id', 'text')
        .addColumn('text', 'text', (column) => column.notNull())
        .addColumn('at', 'timestamptz', (column) => column.notNull())
        .addPrimaryKeyConstraint('conversation_messages_pk', ['workspace_id', 'thread_key', 'message_id'])
        .addCheckConstraint('conversation_messages_role', sql`role in ('user', 'assistant')`)
        .execute();
      await db.schema
        .createIndex('conversation_messages_thread_at')
        .on('conversation_messages')
        .columns(['workspace_id', 'thread_key', 'at'])
        .execute();
      await db.schema
        .createIndex('conversation_messages_person')
        .on('conversation_messages')
        .columns(['workspace_id', 'person_id', 'at'])
        .execute();
      await db.schema
        .createIndex('conversation_messages_age')
        .on('conversation_messages')
        .column('at')
        .execute();
    },
  },
  '0006_answer_feedback': {
    async up(db: Kysely<unknown>) {
      // A person's 👍/👎 on a final answer (the app's feedback buttons), for the operator.
      await db.schema
        .createTable('answer_feedback')
        .addColumn('workspace_id', 'text', (column) => column.notNull())
        .addColumn('thread_key', 'text', (column) => column.notNull())
        // The answer's own id (the app's id of the answer message).
        .addColumn('answer_id', 'text', (column) => column.notNull())
        .addColumn('person_id', 'text', (column) => column.notNull())
        .addColumn('value', 'text', (column) => column.notNull())
        // The answer as recorded when it was rated (cut), so the operator sees what was rated.
        .addColumn('answer_text', 'text')
        .addColumn('at', 'timestamptz', (column) => column.notNull())
        .addPrimaryKeyConstraint('answer_feedback_pk', ['workspace_id', 'answer_id', 'person_id'])
        .addCheckConstraint('answer_feedback_value', sql`value in ('positive', 'negative')`)
        .execute();
      await db.schema
        .createIndex('answer_feedback_workspace_at')
        .on('answer_feedback')
        .columns(['workspace_id', 'at'])
        .execute();
    },
  },
  '0007_audit_and_usage': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('audit_events')
        .addColumn('id', 'bigserial', (column) => column.primaryKey())
        .addColumn('at', 'timestamptz', (column) => column.notNull())
        .addColumn('workspace_id', 'text', (column) => column.notNull())
        .addColumn('person_id', 'text', (column) => column.notNull())
        // tool_call, connect, disconnect, admin
        .addColumn('kind', 'text', (column) => column.notNull())
        .addColumn('server', 'text')
        .addColumn('tool', 'text')
        .addColumn('arguments', 'text')
        .addColumn('approved_by', 'text')
        .addColumn('approved_at', 'timestamptz')
        .addColumn('outcome', 'text')
        .addColumn('duration_ms', 'integer')
        .addColumn('detail', 'text')
        .execute();
      await db.schema
        .createIndex('audit_events_workspace_at')
        .on('audit_events')
        .columns(['workspace_id', 'at'])
        .execute();
      await db.schema.createIndex('audit_events_at').on('audit_events').column('at').execute();
      await db.schema
        .createTable('usage_daily')
        .addColumn('workspace_id', 'text', (column) => column.notNull())
        .addColumn('person_id', 'text', (column) => column.notNull())
        .addColumn('day', 'date', (column) => column.notNull())
        .addColumn('questions', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('input_tokens', 'bigint', (column) => column.notNull().defaultTo(0))
        .addColumn('output_tokens', 'bigint', (column) => column.notNull().defaultTo(0))
        .addColumn('tool_calls', 'integer', (column) => column.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('usage_daily_pk', ['workspace_id', 'person_id', 'day'])
        .execute();
    },
  },
  '0008_workspace_policies': {
    async up(db: Kysely<unknown>) {
      // A row may now hold only an approval policy: `enabled` null follows the catalog.
      await db.schema
        .alterTable('workspace_servers')
        .alterColumn('enabled', (column) => column.dropNotNull())
        .execute();
      await db.schema.alterTable('workspace_servers').addColumn('approval', 'text').execute();
      // The workspace's own budgets (JSON), over the operator's defaults.
      await db.schema.alterTable('workspaces').addColumn('limits', 'text').execute();
    },
  },
  '0009_usage_reservations': {
    async up(db: Kysely<unknown>) {
      // What turns under way may still use: counted against budgets until each turn settles.
      await db.schema
        .createTable('usage_reservations')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('workspace_id', 'text', (column) => column.notNull())
        .addColumn('person_id', 'text', (column) => column.notNull())
        .addColumn('tokens', 'bigint', (column) => column.notNull())
        .addColumn('tool_calls', 'integer', (column) => column.notNull())
        .addColumn('expires_at', 'timestamptz', (column) => column.notNull())
        .execute();
      await db.schema
        .createIndex('usage_reservations_workspace')
        .on('usage_reservations')
        .columns(['workspace_id', 'person_id'])
        .execute();
    },
  },
  '0010_tool_catalogs': {
    async up(db: Kysely<unknown>) {
      // Each shared MCP server's tools/list (JSON), so a restart or another replica lists every tool
      // at once. The key is the server's name and a hash of what identifies it (never a secret).
      await db.schema
        .createTable('tool_catalogs')
        .addColumn('key', 'text', (column) => column.primaryKey())
        .addColumn('tools', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'timestamptz', (column) => column.notNull())
        .execute();
    },
  },
  '0011_tool_vectors': {
    async up(db: Kysely<unknown>) {
      // Tools' embedding vectors (float32, little-endian), computed once for every replica and restart.
      await db.schema
        .createTable('tool_vectors')
        .addColumn('hash', 'text', (column) => column.primaryKey())
        .addColumn('model', 'text', (column) => column.notNull())
        .addColumn('dimensions', 'integer', (column) => column.notNull())
        .addColumn('vector', 'bytea', (column) => column.notNull())
        .addColumn('created_at', 'timestamptz', (column) => column.notNull())
        .execute();
    },
  },
  '0012_conversation_tools': {
    async up(db: Kysely<unknown>) {
      // An answer's tools (JSON names): the thread's next question keeps them offered.
      await db.schema.alterTable('conversation_messages').addColumn('tools', 'text').execute();
    },
  },
  '0013_event_claims_order': {
    async up(db: Kysely<unknown>) {
      // A claim's place in its thread is the app's own number (millionths of a second where it was
      // seconds): claims already stored are scaled, so an unfinished one still sorts before later ones.
      await db.schema.alterTable('event_claims').renameColumn('message_ts', 'thread_order').execute();
      await sql`update event_claims set thread_order = thread_order * 1000000
        where thread_order is not null`.execute(db);
    },
  },
  '0014_schedules': {
    async up(db: Kysely<unknown>) {
      // Questions people set to recur, and each occurrence's one run (the claim across replicas).
      await db.schema
        .createTable('schedules')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('workspace_id', 'text', (column) => column.notNull())
        .addColumn('owner_id', 'text', (column) => column.notNull())
        .addColumn('channel_id', 'text', (column) => column.notNull())
        .addColumn('question', 'text', (column) => column.notNull())
        .addColumn('cron', 'text', (column) => column.notNull())
        .addColumn('time_zone', 'text', (column) => column.notNull())
        .addColumn('description', 'text', (column) => column.notNull())
        .addColumn('approved_tools', 'text', (column) => column.notNull().defaultTo('[]'))
        .addColumn('state', 'text', (column) => column.notNull())
        .addColumn('stopped_reason', 'text')
        .addColumn('next_run_at', 'timestamptz')
        .addColumn('last_run_at', 'timestamptz')
        .addColumn('last_status', 'text')
        .addColumn('last_detail', 'text')
        .addColumn('created_at', 'timestamptz', (column) => column.notNull())
        .addColumn('updated_at', 'timestamptz', (column) => column.notNull())
        .addCheckConstraint('schedules_state', sql`state in ('active', 'paused', 'stopped')`)
        .execute();
      await db.schema
        .createIndex('schedules_due')
        .on('schedules')
        .column('next_run_at')
        .where(sql.ref('state'), '=', 'active')
        .execute();
      await db.schema
        .createIndex('schedules_owner')
        .on('schedules')
        .columns(['workspace_id', 'owner_id'])
        .execute();
      await db.schema
        .createTable('schedule_runs')
        .addColumn('schedule_id', 'text', (column) => column.notNull())
        .addColumn('due_at', 'timestamptz', (column) => column.notNull())
        .addColumn('workspace_id', 'text', (column) => column.notNull())
        .addColumn('replica_key', 'bigint', (column) => column.notNull())
        .addColumn('state', 'text', (column) => column.notNull())
        .addColumn('message_ts', 'text')
        .addColumn('detail', 'text')
        .addColumn('claimed_at', 'timestamptz', (column) => column.notNull())
        .addColumn('finished_at', 'timestamptz')
        .addPrimaryKeyConstraint('schedule_runs_pk', ['schedule_id', 'due_at'])
        .addCheckConstraint(
          'schedule_runs_state',
          sql`state in ('running', 'posting', 'posted', 'failed', 'skipped')`,
        )
        .execute();
      await db.schema
        .createIndex('schedule_runs_open')
        .on('schedule_runs')
        .column('state')
        .where(sql.ref('state'), 'in', ['running', 'posting'])
        .execute();
    },
  },
  '0015_long_tasks': {
    async up(db: Kysely<unknown>) {
      // MCP tasks that outlived their turn: any replica follows one, its result posted when it ends.
      await db.schema
        .createTable('long_tasks')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('workspace_id', 'text', (column) => column.notNull())
        .addColumn('person_id', 'text', (column) => column.notNull())
        .addColumn('tool_name', 'text', (column) => column.notNull())
        .addColumn('task_id', 'text', (column) => column.notNull())
        .addColumn('place', 'text', (column) => column.notNull())
        .addColumn('message_ref', 'text')
        .addColumn('state', 'text', (column) => column.notNull())
        .addColumn('replica_key', 'bigint', (column) => column.notNull())
        .addColumn('detail', 'text')
        .addColumn('created_at', 'timestamptz', (column) => column.notNull())
        .addColumn('updated_at', 'timestamptz', (column) => column.notNull())
        .addCheckConstraint('long_tasks_state', sql`state in ('running', 'completed', 'failed', 'cancelled')`)
        .execute();
      await db.schema
        .createIndex('long_tasks_running')
        .on('long_tasks')
        .column('state')
        .where(sql.ref('state'), '=', 'running')
        .execute();
    },
  },
};

/** Every migration's name, in order (what a fully migrated database has applied). */
export const migrationNames = (): string[] => Object.keys(migrations).sort();

/**
 * Brings the schema up to date (or up to `to`, for tests). Kysely's migrator holds a PostgreSQL advisory lock while it runs, so
 * replicas starting together migrate once and the others wait, then find nothing to do.
 */
export async function migrate(db: Kysely<unknown>, options: { to?: string } = {}): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'store_migrations',
    migrationLockTableName: 'store_migrations_lock',
    // 0005 and 0006 were added after 0007 had shipped: a database with 0007 applied takes them late.
    allowUnorderedMigrations: true,
  });
  const { error, results } = options.to
    ? await migrator.migrateTo(options.to)
    : await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName;
    const detail = error instanceof Error ? error.message : String(error);
    // No migration ran: the database could not be reached (or locked) at all.
    throw new Error(
      failed ? `migration ${failed} failed: ${detail}` : `cannot reach the database to migrate it: ${detail}`,
      { cause: error },
    );
  }
  return (results ?? [])
    .filter((result) => result.status === 'Success')
    .map((result) => result.migrationName);
}
