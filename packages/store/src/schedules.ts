import { randomUUID } from 'node:crypto';
import { type Kysely, type Selectable, sql } from 'kysely';
import { type Coordination, replicaAlive } from './coordination.js';
import type { Database, SchedulesTable } from './schema.js';

/** What a schedule is: paused and stopped ones never run. */
export type ScheduleState = 'active' | 'paused' | 'stopped';

/** How an occurrence ended, as its schedule's last result says. */
export type OccurrenceOutcome = 'posted' | 'failed' | 'skipped' | 'missed';

/** A question a person set to run on a schedule, as them. */
export interface ScheduleRecord {
  id: string;
  workspace: string;
  owner: string;
  channel: string;
  question: string;
  /** Five-field cron expression, read in `timeZone`. */
  cron: string;
  timeZone: string;
  /** The schedule in the words it was set with. */
  description: string;
  /** Tools the owner approved for its runs when confirming it. */
  approvedTools: string[];
  state: ScheduleState;
  stoppedReason?: string;
  nextRunAt?: Date;
  lastRunAt?: Date;
  lastStatus?: OccurrenceOutcome;
  lastDetail?: string;
  createdAt: Date;
}

/** A schedule to create (its first occurrence computed by the caller). */
export type NewSchedule = Pick<
  ScheduleRecord,
  'workspace' | 'owner' | 'channel' | 'question' | 'cron' | 'timeZone' | 'description' | 'approvedTools'
> & { nextRunAt: Date };

/** One occurrence in flight that its replica left behind. */
export interface OrphanRun {
  scheduleId: string;
  dueAt: Date;
  workspace: string;
  replicaKey: number;
  /** `running`: nothing was posted; `posting`: a post may or may not have reached the channel. */
  state: 'running' | 'posting';
}

/** The most schedules one person may have in a workspace. */
export const maxSchedulesPerPerson = 25;

function fromRow(row: Selectable<SchedulesTable>): ScheduleRecord {
  let approvedTools: string[] = [];
  try {
    const parsed = JSON.parse(row.approved_tools) as unknown;
    if (Array.isArray(parsed)) approvedTools = parsed.filter((name) => typeof name === 'string');
  } catch {
    // A row written by hand: no tool is pre-approved.
  }
  return {
    id: row.id,
    workspace: row.workspace_id,
    owner: row.owner_id,
    channel: row.channel_id,
    question: row.question,
    cron: row.cron,
    timeZone: row.time_zone,
    description: row.description,
    approvedTools,
    state: row.state as ScheduleState,
    ...(row.stopped_reason ? { stoppedReason: row.stopped_reason } : {}),
    ...(row.next_run_at ? { nextRunAt: new Date(row.next_run_at) } : {}),
    ...(row.last_run_at ? { lastRunAt: new Date(row.last_run_at) } : {}),
    ...(row.last_status ? { lastStatus: row.last_status as OccurrenceOutcome } : {}),
    ...(row.last_detail ? { lastDetail: row.last_detail } : {}),
    createdAt: new Date(row.created_at),
  };
}

/**
 * Schedules and their occurrences. Each occurrence is claimed by one replica: the claim moves the
 * schedule's `next_run_at` on only if it still names that occurrence (compare and set) and records the
 * run in the same transaction, so two replicas ticking together never both run it. A run records
 * `posting` before its one post and `posted` after it: a replica that dies before `posting` leaves a run
 * another replica takes over; one that dies while posting leaves a run that is reported failed, never
 * posted again.
 */
export class Schedules {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly coordination: Coordination,
  ) {}

  async create(schedule: NewSchedule): Promise<ScheduleRecord> {
    const now = new Date();
    const row = await this.db
      .insertInto('schedules')
      .values({
        id: randomUUID(),
        workspace_id: schedule.workspace,
        owner_id: schedule.owner,
        channel_id: schedule.channel,
        question: schedule.question,
        cron: schedule.cron,
        time_zone: schedule.timeZone,
        description: schedule.description,
        approved_tools: JSON.stringify(schedule.approvedTools),
        state: 'active',
        next_run_at: schedule.nextRunAt,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return fromRow(row);
  }

  async get(id: string): Promise<ScheduleRecord | undefined> {
    const row = await this.db.selectFrom('schedules').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? fromRow(row) : undefined;
  }

  /** A person's schedules in a workspace, oldest first. */
  async ofOwner(workspace: string, owner: string): Promise<ScheduleRecord[]> {
    const rows = await this.db
      .selectFrom('schedules')
      .selectAll()
      .where('workspace_id', '=', workspace)
      .where('owner_id', '=', owner)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(fromRow);
  }

  /** A workspace's schedules (its admins' view), oldest first, at most `limit`. */
  async ofWorkspace(workspace: string, limit = 50): Promise<ScheduleRecord[]> {
    const rows = await this.db
      .selectFrom('schedules')
      .selectAll()
      .where('workspace_id', '=', workspace)
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(fromRow);
  }

  /** Active schedules whose next occurrence is at or before `now`, earliest first. */
  async due(now: Date, limit: number): Promise<ScheduleRecord[]> {
    const rows = await this.db
      .selectFrom('schedules')
      .selectAll()
      .where('state', '=', 'active')
      .where('next_run_at', '<=', now)
      .orderBy('next_run_at')
      .limit(limit)
      .execute();
    return rows.map(fromRow);
  }

  /**
   * Claims the occurrence `dueAt` of a schedule for this replica and moves the schedule on to `next`.
   * False when another replica claimed it first, or the schedule was paused, edited or deleted.
   */
  async claim(id: string, dueAt: Date, next: Date | undefined): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const moved = await trx
        .updateTable('schedules')
        .set({ next_run_at: next ?? null, updated_at: new Date() })
        .where('id', '=', id)
        .where('state', '=', 'active')
        .where('next_run_at', '=', dueAt)
        .returning(['workspace_id'])
        .executeTakeFirst();
      if (!moved) return false;
      const inserted = await trx
        .insertInto('schedule_runs')
        .values({
          schedule_id: id,
          due_at: dueAt,
          workspace_id: moved.workspace_id,
          replica_key: this.coordination.replicaKey,
          state: 'running',
          claimed_at: new Date(),
        })
        .onConflict((conflict) => conflict.columns(['schedule_id', 'due_at']).doNothing())
        .returning(['schedule_id'])
        .executeTakeFirst();
      return inserted !== undefined;
    });
  }

  /**
   * Moves a schedule past occurrences missed while no replica ran (from `dueAt` on) without running
   * them, and says so in its last result. False when another replica moved it first.
   */
  async skipMissed(id: string, dueAt: Date, next: Date | undefined, detail: string): Promise<boolean> {
    const moved = await this.db
      .updateTable('schedules')
      .set({
        next_run_at: next ?? null,
        last_status: 'missed',
        last_detail: detail,
        updated_at: new Date(),
      })
      .where('id', '=', id)
      .where('state', '=', 'active')
      .where('next_run_at', '=', dueAt)
      .executeTakeFirst();
    return Number(moved.numUpdatedRows) > 0;
  }

  /**
   * Marks this replica's run as posting, just before its post. False when the run is no longer this
   * replica's (taken over) or no longer running: then it must not post.
   */
  async posting(id: string, dueAt: Date): Promise<boolean> {
    const updated = await this.db
      .updateTable('schedule_runs')
      .set({ state: 'posting' })
      .where('schedule_id', '=', id)
      .where('due_at', '=', dueAt)
      .where('replica_key', '=', this.coordination.replicaKey)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) > 0;
  }

  /** Ends a run and records its outcome as the schedule's last result. */
  async finish(
    id: string,
    dueAt: Date,
    outcome: { state: 'posted' | 'failed' | 'skipped'; messageTs?: string; detail?: string },
  ): Promise<void> {
    const now = new Date();
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('schedule_runs')
        .set({
          state: outcome.state,
          message_ts: outcome.messageTs ?? null,
          detail: outcome.detail ?? null,
          finished_at: now,
        })
        .where('schedule_id', '=', id)
        .where('due_at', '=', dueAt)
        .execute();
      await trx
        .updateTable('schedules')
        .set({
          last_run_at: dueAt,
          last_status: outcome.state,
          last_detail: outcome.detail ?? null,
          updated_at: now,
        })
        .where('id', '=', id)
        .where((where) => where.or([where('last_run_at', 'is', null), where('last_run_at', '<=', dueAt)]))
        .execute();
    });
  }

  /**
   * Runs in flight whose replica is gone: on PostgreSQL, one that no longer holds its liveness lock;
   * PGlite is one process, so there any other replica key is an earlier life's.
   */
  async orphans(limit = 100): Promise<OrphanRun[]> {
    const rows = await this.db
      .selectFrom('schedule_runs')
      .select(['schedule_id', 'due_at', 'workspace_id', 'replica_key', 'state'])
      .where('state', 'in', ['running', 'posting'])
      .where('replica_key', '!=', this.coordination.replicaKey)
      .$if(this.coordination.engine === 'postgres', (query) =>
        query.where(sql<boolean>`not ${replicaAlive(sql.ref('replica_key'))}`),
      )
      .orderBy('due_at')
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      scheduleId: row.schedule_id,
      dueAt: new Date(row.due_at),
      workspace: row.workspace_id,
      replicaKey: Number(row.replica_key),
      state: row.state as OrphanRun['state'],
    }));
  }

  /** Takes a dead replica's run over (compare and set on its replica); false when another did first. */
  async takeOver(run: OrphanRun): Promise<boolean> {
    const updated = await this.db
      .updateTable('schedule_runs')
      .set({ replica_key: this.coordination.replicaKey, claimed_at: new Date() })
      .where('schedule_id', '=', run.scheduleId)
      .where('due_at', '=', run.dueAt)
      .where('replica_key', '=', run.replicaKey)
      .where('state', '=', run.state)
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) > 0;
  }

  /**
   * Pauses, resumes (with the next occurrence) or stops a schedule (with the reason). Guards, checked in
   * the same statement (a concurrent change cannot slip between a read and this write): `from`, the
   * states it may change from; `keepStopsWith`, a stop whose reason starts so stays as it is. Whether it
   * changed.
   */
  async setState(
    id: string,
    state: ScheduleState,
    options: { nextRunAt?: Date; reason?: string; from?: ScheduleState[]; keepStopsWith?: string } = {},
  ): Promise<boolean> {
    let update = this.db
      .updateTable('schedules')
      .set({
        state,
        next_run_at: state === 'active' ? (options.nextRunAt ?? null) : null,
        stopped_reason: state === 'stopped' ? (options.reason ?? null) : null,
        updated_at: new Date(),
      })
      .where('id', '=', id);
    if (options.from) update = update.where('state', 'in', options.from);
    const kept = options.keepStopsWith;
    if (kept !== undefined)
      update = update.where((row) =>
        row.not(
          row.and([
            row('state', '=', 'stopped'),
            row(sql<string>`left(coalesce(stopped_reason, ''), ${kept.length})`, '=', kept),
          ]),
        ),
      );
    const updated = await update.executeTakeFirst();
    return Number(updated.numUpdatedRows) > 0;
  }

  /** Changes when a schedule runs (and its next occurrence, when active). */
  async reschedule(
    id: string,
    change: { cron: string; timeZone: string; description: string; nextRunAt: Date },
  ): Promise<boolean> {
    const updated = await this.db
      .updateTable('schedules')
      .set({
        cron: change.cron,
        time_zone: change.timeZone,
        description: change.description,
        next_run_at: sql`case when state = 'active' then ${change.nextRunAt}::timestamptz else null end`,
        updated_at: new Date(),
      })
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) > 0;
  }

  /** Deletes a schedule; a run in flight finishes, nothing runs after. */
  async delete(id: string): Promise<boolean> {
    const deleted = await this.db.deleteFrom('schedules').where('id', '=', id).executeTakeFirst();
    return Number(deleted.numDeletedRows) > 0;
  }

  /** How many schedules a person has in a workspace. */
  async countOf(workspace: string, owner: string): Promise<number> {
    const row = await this.db
      .selectFrom('schedules')
      .select((select) => select.fn.countAll<string>().as('count'))
      .where('workspace_id', '=', workspace)
      .where('owner_id', '=', owner)
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  }

  /** A schedule's recent runs, newest first. */
  async runsOf(
    id: string,
    limit = 10,
  ): Promise<Array<{ dueAt: Date; state: string; messageTs?: string; detail?: string }>> {
    const rows = await this.db
      .selectFrom('schedule_runs')
      .select(['due_at', 'state', 'message_ts', 'detail'])
      .where('schedule_id', '=', id)
      .orderBy('due_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      dueAt: new Date(row.due_at),
      state: row.state,
      ...(row.message_ts ? { messageTs: row.message_ts } : {}),
      ...(row.detail ? { detail: row.detail } : {}),
    }));
  }
}
