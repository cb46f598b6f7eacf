import { type Kysely, sql } from 'kysely';
import { type Migration, Migrator } from 'kysely/migration';

/**
 * The schema, written once for PostgreSQL (PGlite is PostgreSQL too). Never edit a migration that has
 * shipped: add the next one.
 */
const migrations: Record<string, Migration> = {
  '0001_workspaces_and_credentials': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('workspaces')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('enterprise_id', 'text')
        .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
        .execute();
      await db.schema
        .createTable('workspace_servers')
        .addColumn('workspace_id', 'text', (column) =>
          column.notNull().references('workspaces.id').onDelete('cascade'),
        )
        .addColumn('server', 'text', (column) => column.notNull())
        .addColumn('enabled', 'boolean', (column) => column.notNull())
        .addColumn('changed_by', 'text')
        .addColumn('updated_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
        .addPrimaryKeyConstraint('workspace_servers_pk', ['workspace_id', 'server'])
        .execute();
      await db.schema
        .createTable('user_credentials')
        .addColumn('workspace_id', 'text', (column) =>
          column.notNull().references('workspaces.id').onDelete('cascade'),
        )
        .addColumn('user_id', 'text', (column) => column.notNull())
        .addColumn('server', 'text', (column) => column.notNull())
        .addColumn('secret', 'text', (column) => column.notNull())
        .addColumn('key_id', 'text', (column) => column.notNull())
        .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
        .addColumn('updated_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
        .addColumn('last_used_at', 'timestamptz')
        .addPrimaryKeyConstraint('user_credentials_pk', ['workspace_id', 'user_id', 'server'])
        .execute();
      await db.schema.createIndex('user_credentials_key').on('user_credentials').column('key_id').execute();
    },
  },
  '0002_installations_and_event_claims': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('slack_installations')
        // `E:<enterprise id>` for an org-wide install, `T:<team id>` otherwise.
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('team_id', 'text')
        .addColumn('enterprise_id', 'text')
        .addColumn('is_enterprise_install', 'boolean', (column) => column.notNull())
        .addColumn('bot_user_id', 'text')
        .addColumn('bot_id', 'text')
        .addColumn('scopes', 'text')
        .addColumn('installer_user_id', 'text')
        .addColumn('secret', 'text', (column) => column.notNull())
        .addColumn('key_id', 'text', (column) => column.notNull())
        .addColumn('installed_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
        .addColumn('updated_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
        .execute();
      await db.schema
        .createIndex('slack_installations_enterprise')
        .on('slack_installations')
        .column('enterprise_id')
        .execute();
      await db.schema
        .createTable('event_claims')
        .addColumn('event_id', 'text', (column) => column.primaryKey())
        // `<team>:<channel>:<thread ts>`; null for events that answer nothing in a thread.
        .addColumn('thread_key', 'text')
        .addColumn('message_ts', 'numeric')
        .addColumn('replica_key', 'integer', (column) => column.notNull())
        .addColumn('claimed_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
        .addColumn('finished_at', 'timestamptz')
        .addColumn('abandoned', 'boolean', (column) => column.notNull().defaultTo(false))
        .execute();
      await db.schema
        .createIndex('event_claims_thread')
        .on('event_claims')
        .columns(['thread_key', 'message_ts'])
        .where(sql.ref('finished_at'), 'is', null)
        .execute();
      await db.schema.createIndex('event_claims_age').on('event_claims').column('claimed_at').execute();
      await db.schema
        .createIndex('slack_installations_key')
        .on('slack_installations')
        .column('key_id')
        .execute();
    },
  },
  '0003_sealed_records': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('sealed_records')
        .addColumn('kind', 'text', (column) => column.notNull())
        .addColumn('id', 'text', (column) => column.notNull())
        .addColumn('workspace_id', 'text')
        .addColumn('organisation_id', 'text')
        .addColumn('secret', 'text', (column) => column.notNull())
        .addColumn('key_id', 'text', (column) => column.notNull())
        .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
        .addColumn('updated_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
        .addPrimaryKeyConstraint('sealed_records_pk', ['kind', 'id'])
        .execute();
      await db.schema.createIndex('sealed_records_key').on('sealed_records').column('key_id').execute();
      await db.schema
        .createIndex('sealed_records_workspace')
        .on('sealed_records')
        .column('workspace_id')
        .execute();
      await db.schema
        .createIndex('sealed_records_organisation')
        .on('sealed_records')
        .column('organisation_id')
        .execute();
      // Slack installations become the Slack app's sealed records of kind `installation`, their ids
      // (`T:<team>`, `E:<enterprise>`) kept: the encryption context `installation:<id>` still opens them.
      await sql`
        insert into sealed_records (kind, id, workspace_id, organisation_id, secret, key_id, created_at, updated_at)
        select 'installation', id, case when is_enterprise_install then null else team_id end,
          enterprise_id, secret, key_id, installed_at, updated_at
        from slack_installations`.execute(db);
      await db.schema.dropTable('slack_installations').execute();
      // Claims live an hour: the ones already there keep a null workspace until they are pruned.
      await db.schema.alterTable('event_claims').addColumn('workspace_id', 'text').execute();
      await db.schema
        .createIndex('event_claims_workspace')
        .on('event_claims')
        .column('workspace_id')
        .execute();
    },
  },
  '0004_pending_approvals': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('pending_approvals')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('workspace_id', 'text', (column) => column.notNull())
        .addColumn('person_id', 'text', (column) => column.notNull())
        .addColumn('replica_key', 'integer', (column) => column.notNull())
        .addColumn('detail', 'text', (column) => column.notNull())
        .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
        .addColumn('expires_at', 'timestamptz', (column) => column.notNull())
        .addColumn('decision', 'text')
        .addColumn('decided_by', 'text')
        .addColumn('reason', 'text')
        .addColumn('decided_at', 'timestamptz')
        .addCheckConstraint(
          'pending_approvals_decision',
          sql`decision is null or decision in ('approved', 'denied', 'expired')`,
        )
        .execute();
      await db.schema
        .createIndex('pending_approvals_waiting')
        .on('pending_approvals')
        .columns(['workspace_id', 'person_id'])
        .where(sql.ref('decision'), 'is', null)
        .execute();
      await db.schema
        .createIndex('pending_approvals_age')
        .on('pending_approvals')
        .column('expires_at')
        .execute();
    },
  },
  '0005_conversations': {
    async up(db: Kysely<unknown>) {
      // The threads an app takes part in, and what was said there: people's messages and final answers,
      // never tool steps. Keys are the app's own (the Slack app: `<channel>:<thread ts>`, message ts).
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
      // A person's 👍/👎 on a final answer (Slack's feedback buttons), for the operator.
      await db.schema
        .createTable('answer_feedback')
        .addColumn('workspace_id', 'text', (column) => column.notNull())
        .addColumn('thread_key', 'text', (column) => column.notNull())
        // The answer's own id (the Slack app: the answer message's ts).
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
