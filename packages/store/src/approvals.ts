import { type Kysely, type Selectable, sql } from 'kysely';
import { type Coordination, replicaAlive } from './coordination.js';
import type { Database, PendingApprovalsTable } from './schema.js';

/** How a request ended. */
export type ApprovalOutcome = 'approved' | 'denied' | 'expired';

/** A decision as recorded. */
export interface RecordedDecision {
  outcome: ApprovalOutcome;
  /** Who decided (the person, for approved and denied); null for an expiry. */
  by: string | null;
  reason: string | null;
  decidedAt: Date;
}

/** A request as stored. */
export interface PendingApproval {
  id: string;
  workspace: string;
  /** The only person who may approve or deny it. */
  person: string;
  /** The replica that asked and waits for the decision. */
  replicaKey: number;
  /** The app's own description of the request (JSON: where its message is, what it asks). */
  detail: string;
  createdAt: Date;
  expiresAt: Date;
  /** Absent while it waits. */
  decision?: RecordedDecision;
}

/** A request to record, before the person is asked. */
export interface ApprovalToOpen {
  id: string;
  workspace: string;
  person: string;
  detail: string;
  expiresAt: Date;
}

/** Polling for a decision recorded by another replica starts this fast, then slows to `pollMs`. */
const firstPollMs = 50;

function fromRow(row: Selectable<PendingApprovalsTable>): PendingApproval {
  return {
    id: row.id,
    workspace: row.workspace_id,
    person: row.person_id,
    replicaKey: row.replica_key,
    detail: row.detail,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    ...(row.decision
      ? {
          decision: {
            outcome: row.decision,
            by: row.decided_by,
            reason: row.reason,
            decidedAt: row.decided_at ?? new Date(),
          },
        }
      : {}),
  };
}

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Requests waiting for one person's decision (an approval), shared by replicas: any replica may record
 * the decision (the person's button press reaches whichever one the chat platform picks), and the replica that
 * asked learns it — at once when the decision is recorded in its own process, else by polling the row.
 * The first decision recorded wins; later ones are refused.
 */
export class Approvals {
  /** This process's waiters, by request: a decision recorded here wakes them without a query. */
  private readonly waiters = new Map<string, Set<(decision: RecordedDecision) => void>>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly coordination: Coordination,
  ) {}

  /** Records a request of this replica, waiting for `person`'s decision until `expiresAt`. */
  async open(request: ApprovalToOpen): Promise<void> {
    await this.db
      .insertInto('pending_approvals')
      .values({
        id: request.id,
        workspace_id: request.workspace,
        person_id: request.person,
        replica_key: this.coordination.replicaKey,
        detail: request.detail,
        expires_at: request.expiresAt,
      })
      .execute();
  }

  /** Replaces the app's description of a request (once its message is posted, say). */
  async describe(id: string, detail: string): Promise<void> {
    await this.db.updateTable('pending_approvals').set({ detail }).where('id', '=', id).execute();
  }

  /** How many requests wait for this person's decision (not decided, not past their expiry). */
  async countWaiting(workspace: string, person: string): Promise<number> {
    const row = await this.db
      .selectFrom('pending_approvals')
      .select(sql<string>`count(*)::text`.as('count'))
      .where('workspace_id', '=', workspace)
      .where('person_id', '=', person)
      .where('decision', 'is', null)
      .where('expires_at', '>', sql<Date>`now()`)
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  }

  /** A request, decided or not; undefined when there is none (never was, or pruned). */
  async get(id: string): Promise<PendingApproval | undefined> {
    const row = await this.db
      .selectFrom('pending_approvals')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? fromRow(row) : undefined;
  }

  /**
   * Records a decision, if none was: true when this one counts. Approving or denying needs `by` to be
   * the request's person; an expiry needs no one.
   */
  async decide(
    id: string,
    decision: { outcome: ApprovalOutcome; by?: string; reason?: string },
  ): Promise<boolean> {
    let update = this.db
      .updateTable('pending_approvals')
      .set({
        decision: decision.outcome,
        decided_by: decision.by ?? null,
        reason: decision.reason ?? null,
        decided_at: sql`now()`,
      })
      .where('id', '=', id)
      .where('decision', 'is', null);
    if (decision.outcome !== 'expired') update = update.where('person_id', '=', decision.by ?? '');
    const row = await update.returning('decided_at').executeTakeFirst();
    if (!row) return false;
    const recorded: RecordedDecision = {
      outcome: decision.outcome,
      by: decision.by ?? null,
      reason: decision.reason ?? null,
      decidedAt: row.decided_at ?? new Date(),
    };
    for (const wake of this.waiters.get(id) ?? []) wake(recorded);
    return true;
  }

  /**
   * Resolves with the request's decision once one is recorded: at once for one recorded in this process,
   * within `pollMs` (default 500) for one recorded by another replica. A request that is gone counts as
   * expired. Rejects with the signal's reason when `signal` aborts (the caller then records the expiry).
   */
  async wait(id: string, options: { signal?: AbortSignal; pollMs?: number } = {}): Promise<RecordedDecision> {
    const { signal } = options;
    const pollMs = Math.max(options.pollMs ?? 500, firstPollMs);
    let woken: RecordedDecision | undefined;
    let wake = () => {};
    const listener = (decision: RecordedDecision) => {
      woken = decision;
      wake();
    };
    const listeners = this.waiters.get(id) ?? new Set();
    listeners.add(listener);
    this.waiters.set(id, listeners);
    try {
      for (let attempt = 0; ; attempt++) {
        signal?.throwIfAborted();
        if (woken) return woken;
        const request = await this.get(id);
        if (woken) return woken;
        if (!request) return { outcome: 'expired', by: null, reason: null, decidedAt: new Date() };
        if (request.decision) return request.decision;
        const stop = new AbortController();
        wake = () => stop.abort();
        await pause(
          Math.min(firstPollMs * 2 ** attempt, pollMs),
          AbortSignal.any([stop.signal, ...(signal ? [signal] : [])]),
        );
      }
    } finally {
      listeners.delete(listener);
      if (listeners.size === 0) this.waiters.delete(id);
    }
  }

  /**
   * At a replica's start (after `coordination.start()`): marks expired every undecided request whose
   * asking replica is gone, and returns them, so the app can say so where it asked. On PostgreSQL a
   * replica is gone when it no longer holds its liveness lock; PGlite is one process, so there every
   * undecided request of another replica key is an earlier life's.
   */
  async expireOrphans(): Promise<PendingApproval[]> {
    const mine = this.coordination.replicaKey;
    const rows = await this.db
      .updateTable('pending_approvals')
      .set({ decision: 'expired', decided_at: sql`now()`, reason: 'the asking replica stopped' })
      .where('decision', 'is', null)
      .where('replica_key', '!=', mine)
      .$if(this.coordination.engine === 'postgres', (update) =>
        update.where(sql<boolean>`not ${replicaAlive(sql.ref('replica_key'))}`),
      )
      .returningAll()
      .execute();
    return rows.map(fromRow);
  }
}
