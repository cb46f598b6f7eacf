import { type Kysely, sql } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * The first migrations, 0001 to 0004, in order; `migrations.ts` lists them ahead of the later ones. They
 * have shipped: never edit them.
 */
export const earlyMigrations: Record<string, Migration> = {
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
      // The app's installations become its sealed records of kind `installation`, their ids
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
};
