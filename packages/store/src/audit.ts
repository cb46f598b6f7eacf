import { type Kysely, type Selectable, sql } from 'kysely';
import type { AuditEventsTable, Database } from './schema.js';

/** One audited action. Nothing secret: the caller redacts and cuts the arguments before they come here. */
export interface AuditEntry {
  at: Date;
  workspace: string;
  person: string;
  kind: 'tool_call' | 'connect' | 'disconnect' | 'admin';
  server?: string;
  tool?: string;
  /** The arguments as shown to people (redacted), cut. */
  arguments?: string;
  /** Who approved and when; absent: it ran without asking ("auto"), or was no tool call. */
  approval?: { by: string; at: Date };
  outcome?: 'ok' | 'error' | 'denied';
  durationMs?: number;
  /** A connect's or an admin change's words ("enabled weather"). */
  detail?: string;
}

/** What `recent` and `export` give back. */
export interface AuditRow extends AuditEntry {
  id: string;
}

/** The cap of a stored arguments text (the caller cuts too). */
const maxArguments = 2000;

/** Who did what: tool calls with their approvals and outcomes, connects, admins' changes. */
export class AuditTrail {
  constructor(private readonly db: Kysely<Database>) {}

  async record(entry: AuditEntry): Promise<void> {
    await this.db
      .insertInto('audit_events')
      .values({
        at: entry.at,
        workspace_id: entry.workspace,
        person_id: entry.person,
        kind: entry.kind,
        server: entry.server ?? null,
        tool: entry.tool ?? null,
        arguments: entry.arguments?.slice(0, maxArguments) ?? null,
        approved_by: entry.approval?.by ?? null,
        approved_at: entry.approval?.at ?? null,
        outcome: entry.outcome ?? null,
        duration_ms: entry.durationMs === undefined ? null : Math.round(entry.durationMs),
        detail: entry.detail?.slice(0, 500) ?? null,
      })
      .execute();
  }

  /** A workspace's newest entries (at most `limit`, default 50), optionally of one server or person. */
  async recent(
    workspace: string,
    filter: { server?: string; person?: string; limit?: number } = {},
  ): Promise<AuditRow[]> {
    let query = this.db.selectFrom('audit_events').selectAll().where('workspace_id', '=', workspace);
    if (filter.server) query = query.where('server', '=', filter.server);
    if (filter.person) query = query.where('person_id', '=', filter.person);
    const rows = await query
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(Math.min(500, filter.limit ?? 50))
      .execute();
    return rows.map(toEntry);
  }

  /** Every entry since `since`, oldest first, in pages (for an operator's export). */
  async *since(since: Date, pageSize = 1000): AsyncGenerator<AuditRow> {
    let after = '0';
    for (;;) {
      const rows = await this.db
        .selectFrom('audit_events')
        .selectAll()
        .where('at', '>=', since)
        .where(sql<boolean>`id > ${after}::bigint`)
        .orderBy('id')
        .limit(pageSize)
        .execute();
      for (const row of rows) yield toEntry(row);
      if (rows.length < pageSize) return;
      after = String(rows.at(-1)?.id);
    }
  }

  /** Deletes entries older than `before`; how many. */
  async prune(before: Date): Promise<number> {
    const result = await this.db.deleteFrom('audit_events').where('at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

function toEntry(row: Selectable<AuditEventsTable>): AuditRow {
  return {
    id: String(row.id),
    at: new Date(row.at),
    workspace: row.workspace_id,
    person: row.person_id,
    kind: row.kind as AuditEntry['kind'],
    ...(row.server ? { server: row.server } : {}),
    ...(row.tool ? { tool: row.tool } : {}),
    ...(row.arguments ? { arguments: row.arguments } : {}),
    ...(row.approved_by && row.approved_at
      ? { approval: { by: row.approved_by, at: new Date(row.approved_at) } }
      : {}),
    ...(row.outcome ? { outcome: row.outcome as NonNullable<AuditEntry['outcome']> } : {}),
    ...(row.duration_ms !== null ? { durationMs: row.duration_ms } : {}),
    ...(row.detail ? { detail: row.detail } : {}),
  };
}
