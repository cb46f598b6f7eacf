import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';

/**
 * The workspaces the store knows, the organisation each belongs to, and which catalog servers each
 * one's admins enabled or disabled.
 */
export class WorkspaceSettings {
  constructor(private readonly db: Kysely<Database>) {}

  /** Records a workspace (idempotent); an organisation given is recorded with it. */
  async ensure(workspace: string, organisation?: string): Promise<void> {
    await this.db
      .insertInto('workspaces')
      .values({ id: workspace, enterprise_id: organisation ?? null })
      .onConflict((conflict) =>
        organisation
          ? conflict.column('id').doUpdateSet({ enterprise_id: organisation })
          : conflict.column('id').doNothing(),
      )
      .execute();
  }

  /** The servers a workspace's admins enabled (true) or disabled (false); absent ones follow the catalog. */
  async settings(workspace: string): Promise<Map<string, boolean>> {
    return (await this.policies(workspace)).enabled;
  }

  /** In one read: the servers enabled or disabled, and the approval policy chosen per server. */
  async policies(
    workspace: string,
  ): Promise<{ enabled: Map<string, boolean>; approvals: Map<string, 'auto' | 'writes' | 'always'> }> {
    const rows = await this.db
      .selectFrom('workspace_servers')
      .select(['server', 'enabled', 'approval'])
      .where('workspace_id', '=', workspace)
      .execute();
    const enabled = new Map<string, boolean>();
    const approvals = new Map<string, 'auto' | 'writes' | 'always'>();
    for (const row of rows) {
      if (row.enabled !== null) enabled.set(row.server, row.enabled);
      if (row.approval === 'auto' || row.approval === 'writes' || row.approval === 'always')
        approvals.set(row.server, row.approval);
    }
    return { enabled, approvals };
  }

  /** An admin's approval policy for a server of the workspace (null: back to the server's own). */
  async setApproval(
    workspace: string,
    server: string,
    approval: 'auto' | 'writes' | 'always' | null,
    by: string,
  ): Promise<void> {
    await this.ensure(workspace);
    await this.db
      .insertInto('workspace_servers')
      .values({ workspace_id: workspace, server, enabled: null, approval, changed_by: by })
      .onConflict((conflict) =>
        conflict
          .columns(['workspace_id', 'server'])
          .doUpdateSet({ approval, changed_by: by, updated_at: sql`now()` }),
      )
      .execute();
  }

  /** Forgets what admins chose for a server (it was removed from the workspace). */
  async forgetServer(workspace: string, server: string): Promise<void> {
    await this.db
      .deleteFrom('workspace_servers')
      .where('workspace_id', '=', workspace)
      .where('server', '=', server)
      .execute();
  }

  /** The workspace's own budgets (the admins'), as they were saved; undefined when none. */
  async limits(workspace: string): Promise<Record<string, number> | undefined> {
    const row = await this.db
      .selectFrom('workspaces')
      .select('limits')
      .where('id', '=', workspace)
      .executeTakeFirst();
    return row?.limits ? (JSON.parse(row.limits) as Record<string, number>) : undefined;
  }

  /** Saves the workspace's own budgets (an empty object clears them). */
  async setLimits(workspace: string, limits: Record<string, number>): Promise<void> {
    await this.ensure(workspace);
    const value = Object.keys(limits).length > 0 ? JSON.stringify(limits) : null;
    await this.db.updateTable('workspaces').set({ limits: value }).where('id', '=', workspace).execute();
  }

  /** An admin's choice to enable or disable a server in a workspace. */
  async setEnabled(workspace: string, server: string, enabled: boolean, by: string): Promise<void> {
    await this.ensure(workspace);
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

  /** The workspaces recorded as belonging to an organisation. */
  async inOrganisation(organisation: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('workspaces')
      .select('id')
      .where('enterprise_id', '=', organisation)
      .orderBy('id')
      .execute();
    return rows.map((row) => row.id);
  }

  /**
   * Deletes a workspace and everything stored for it, in one transaction: every credential, its server
   * settings, its sealed records, its event claims, its pending approvals, its audit, usage,
   * conversations and answer feedback.
   */
  async delete(workspace: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('user_credentials').where('workspace_id', '=', workspace).execute();
      await trx.deleteFrom('workspace_servers').where('workspace_id', '=', workspace).execute();
      await trx.deleteFrom('workspaces').where('id', '=', workspace).execute();
      await trx.deleteFrom('sealed_records').where('workspace_id', '=', workspace).execute();
      await trx.deleteFrom('event_claims').where('workspace_id', '=', workspace).execute();
      await trx.deleteFrom('pending_approvals').where('workspace_id', '=', workspace).execute();
      await trx.deleteFrom('audit_events').where('workspace_id', '=', workspace).execute();
      await trx.deleteFrom('usage_daily').where('workspace_id', '=', workspace).execute();
      await trx.deleteFrom('usage_reservations').where('workspace_id', '=', workspace).execute();
      await trx.deleteFrom('conversation_messages').where('workspace_id', '=', workspace).execute();
      await trx.deleteFrom('conversation_threads').where('workspace_id', '=', workspace).execute();
      await trx.deleteFrom('answer_feedback').where('workspace_id', '=', workspace).execute();
      await trx.deleteFrom('schedules').where('workspace_id', '=', workspace).execute();
      await trx.deleteFrom('schedule_runs').where('workspace_id', '=', workspace).execute();
      await trx.deleteFrom('long_tasks').where('workspace_id', '=', workspace).execute();
    });
  }
}
