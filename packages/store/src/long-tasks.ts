import { randomUUID } from 'node:crypto';
import { type Kysely, type Selectable, sql } from 'kysely';
import { type Coordination, replicaAlive } from './coordination.js';
import type { Database, LongTasksTable } from './schema.js';

/** An MCP task a turn left running, and where its result goes. */
export interface LongTask {
  id: string;
  workspace: string;
  person: string;
  /** The model-facing tool name it was started with. */
  tool: string;
  taskId: string;
  /** The app's place for its result (opaque to the store). */
  place: string;
  /** The app's message saying it runs (opaque to the store). */
  messageRef?: string;
  state: 'running' | 'completed' | 'failed' | 'cancelled';
  replicaKey: number;
  detail?: string;
  createdAt: Date;
}

function fromRow(row: Selectable<LongTasksTable>): LongTask {
  return {
    id: row.id,
    workspace: row.workspace_id,
    person: row.person_id,
    tool: row.tool_name,
    taskId: row.task_id,
    place: row.place,
    ...(row.message_ref ? { messageRef: row.message_ref } : {}),
    state: row.state as LongTask['state'],
    replicaKey: Number(row.replica_key),
    ...(row.detail ? { detail: row.detail } : {}),
    createdAt: new Date(row.created_at),
  };
}

/**
 * MCP tasks that outlived their turn. The replica that records one follows it; when that replica dies,
 * another takes it over (compare and set on the replica key, as schedules' runs). The first `finish`
 * wins, so a result is posted once.
 */
export class LongTasks {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly coordination: Coordination,
  ) {}

  /** Records a task this replica follows. */
  async record(
    task: Pick<LongTask, 'workspace' | 'person' | 'tool' | 'taskId' | 'place'>,
  ): Promise<LongTask> {
    const now = new Date();
    const row = await this.db
      .insertInto('long_tasks')
      .values({
        id: randomUUID(),
        workspace_id: task.workspace,
        person_id: task.person,
        tool_name: task.tool,
        task_id: task.taskId,
        place: task.place,
        state: 'running',
        replica_key: this.coordination.replicaKey,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return fromRow(row);
  }

  async get(id: string): Promise<LongTask | undefined> {
    const row = await this.db.selectFrom('long_tasks').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? fromRow(row) : undefined;
  }

  /** Notes the app's message about a task (its Cancel button). */
  async setMessage(id: string, messageRef: string): Promise<void> {
    await this.db.updateTable('long_tasks').set({ message_ref: messageRef }).where('id', '=', id).execute();
  }

  /**
   * Running tasks no live replica follows: on PostgreSQL, those whose replica no longer holds its liveness
   * lock; on PGlite (one process), those of another replica key (an earlier life's).
   */
  async orphans(limit = 50): Promise<LongTask[]> {
    const rows = await this.db
      .selectFrom('long_tasks')
      .selectAll()
      .where('state', '=', 'running')
      .where('replica_key', '!=', this.coordination.replicaKey)
      .$if(this.coordination.engine === 'postgres', (query) =>
        query.where(sql<boolean>`not ${replicaAlive(sql.ref('replica_key'))}`),
      )
      .orderBy('created_at')
      .limit(limit)
      .execute();
    return rows.map(fromRow);
  }

  /** Takes a dead replica's task over; false when another replica did first or it ended. */
  async takeOver(task: LongTask): Promise<boolean> {
    const updated = await this.db
      .updateTable('long_tasks')
      .set({ replica_key: this.coordination.replicaKey, updated_at: new Date() })
      .where('id', '=', task.id)
      .where('state', '=', 'running')
      .where('replica_key', '=', task.replicaKey)
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) > 0;
  }

  /** Ends a running task; false when it had ended already (its result was posted, or it was cancelled). */
  async finish(id: string, state: 'completed' | 'failed' | 'cancelled', detail?: string): Promise<boolean> {
    const updated = await this.db
      .updateTable('long_tasks')
      .set({ state, detail: detail?.slice(0, 500) ?? null, updated_at: new Date() })
      .where('id', '=', id)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) > 0;
  }
}
