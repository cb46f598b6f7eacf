import { randomInt } from 'node:crypto';
import type { Logger } from '@ai-assistant/chat-types';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Engine } from './engines.js';
import type { Database } from './schema.js';

/** An event to claim: its id (the same on every retry of the event) and its place in a thread. */
export interface EventClaim {
  id: string;
  /** The workspace the event came from: its claim is deleted with the workspace. */
  workspace?: string;
  /** The app's key for the thread the event belongs to; absent for an event that answers in no thread. */
  thread?: string;
  /**
   * The event's place in its thread, computed by the app (smaller first): a thread's events are answered
   * in this order. Opaque to the store; one that is not a finite number orders nothing.
   */
  order?: number;
}

/** A thread's turn: held while its answer runs, then given back (marks the claim finished). */
export interface ThreadTurn {
  /** Claims of the thread that a dead replica left unfinished; they are marked abandoned. */
  abandoned: string[];
  release(): Promise<void>;
}

/** Advisory-lock namespaces (the first key of `pg_advisory_lock(int, int)`). */
const threadLocks = 0x41_41_01;
const replicaLocks = 0x41_41_02;

/**
 * SQL true when the replica of `replicaKey` (a column or value) lives: it holds its liveness lock in
 * this database (PostgreSQL only).
 */
export const replicaAlive = (replicaKey: RawBuilder<unknown>) => sql<boolean>`exists (
  select 1 from pg_locks l
  where l.locktype = 'advisory' and l.granted and l.objsubid = 2
    and l.database = (select oid from pg_database where datname = current_database())
    and l.classid::bigint = ${replicaLocks} and l.objid::bigint = ${replicaKey}
)`;

/** Claims older than this are deleted (an hour: longer than a chat platform retries an event). */
export const claimRetentionMs = 60 * 60 * 1000;

/** The order as stored: a finite number, else null. */
function orderOf(event: EventClaim): number | null {
  return event.order !== undefined && Number.isFinite(event.order) ? event.order : null;
}

interface HeldConnection {
  db: Kysely<Database>;
  release(): void;
}

/**
 * What lets several replicas serve one workspace: an event is answered by the one replica whose claim
 * (an insert on its unique id) succeeds, and one thread's messages run one at a time in the app's order,
 * whichever replica took them.
 *
 * On PostgreSQL a thread's turn is a session advisory lock on a connection held while the answer runs;
 * it ends with the connection, so a replica that dies frees its threads at once. Each replica also holds
 * a lock on its own key for its lifetime: a claim whose replica no longer holds it was abandoned, and no
 * longer blocks the thread. PGlite lives in one process, so there a turn is the in-process order alone.
 */
export class Coordination {
  /** This replica's key (random, positive), written on its claims. */
  readonly replicaKey = randomInt(1, 2 ** 31 - 1);
  private liveness: HeldConnection | undefined;
  /** The liveness lock being taken, while it is. */
  private holding: Promise<void> | undefined;
  private pruner: NodeJS.Timeout | undefined;
  private started = false;

  constructor(
    private readonly db: Kysely<Database>,
    readonly engine: Engine,
    private readonly logger: Logger,
  ) {}

  /** Starts holding this replica's liveness lock (PostgreSQL) and pruning old claims every `pruneEveryMs`. */
  async start(options: { pruneEveryMs?: number; retentionMs?: number } = {}): Promise<void> {
    this.started = true;
    await this.holdLiveness();
    const every = options.pruneEveryMs ?? 10 * 60 * 1000;
    const retention = options.retentionMs ?? claimRetentionMs;
    const prune = () =>
      this.prune(retention).catch((error: unknown) =>
        this.logger.warn({ error: String(error) }, 'could not delete old event claims and approval requests'),
      );
    void prune();
    this.pruner ??= setInterval(prune, every);
    this.pruner.unref();
  }

  /**
   * For health checks: throws when the database cannot be reached. On PostgreSQL it also makes sure this
   * replica still holds its liveness lock, taking it again when its connection was lost (a restart of
   * the server), so its claims are not taken for a dead replica's.
   */
  async check(): Promise<void> {
    const held = this.liveness;
    if (held) {
      try {
        await sql`select 1`.execute(held.db);
      } catch {
        held.release();
        if (this.liveness === held) this.liveness = undefined;
      }
    }
    if (this.started) await this.holdLiveness();
    else await sql`select 1`.execute(this.db);
  }

  /**
   * True when this replica is the first to claim the event; false for a duplicate (a retry, another
   * replica). An `order` that is not a finite number is not stored (the claim then orders nothing), so
   * it never fails the insert and is never taken for the store being down.
   */
  async claim(event: EventClaim): Promise<boolean> {
    const row = await this.db
      .insertInto('event_claims')
      .values({
        event_id: event.id,
        workspace_id: event.workspace ?? null,
        thread_key: event.thread ?? null,
        thread_order: orderOf(event),
        replica_key: this.replicaKey,
      })
      .onConflict((conflict) => conflict.column('event_id').doNothing())
      .returning('event_id')
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Deletes this replica's unfinished claim: of an event it will not answer (it is shutting down), or
   * of work it has done (an OAuth refresh), so the id may be claimed again.
   */
  async unclaim(id: string): Promise<void> {
    await this.db
      .deleteFrom('event_claims')
      .where('event_id', '=', id)
      .where('replica_key', '=', this.replicaKey)
      .where('finished_at', 'is', null)
      .execute();
  }

  /**
   * Tries to take the thread's turn for a claimed event, without waiting: undefined while another
   * replica answers in the thread or an earlier message of it (claimed by a live replica) is unfinished.
   * Call again later; the caller decides how long to wait between tries.
   */
  async tryTurn(event: EventClaim): Promise<ThreadTurn | undefined> {
    if (this.engine !== 'postgres' || !event.thread) {
      return { abandoned: [], release: () => this.finish(this.db, event.id) };
    }
    const held = await this.hold();
    let locked = false;
    try {
      const lock = await sql<{ locked: boolean }>`
        select pg_try_advisory_lock(${threadLocks}, hashtext(${event.thread})) as locked`.execute(held.db);
      locked = lock.rows[0]?.locked === true;
      if (!locked) {
        held.release();
        return undefined;
      }
      const ahead = await sql<{ event_id: string; alive: boolean }>`
        select c.event_id, ${replicaAlive(sql`c.replica_key`)} as alive
        from event_claims c
        where c.thread_key = ${event.thread} and c.finished_at is null and c.event_id <> ${event.id}
          and c.thread_order < ${orderOf(event)}::numeric`.execute(held.db);
      if (ahead.rows.some((row) => row.alive)) {
        await this.unlock(held, event.thread);
        return undefined;
      }
      const abandoned = ahead.rows.map((row) => row.event_id);
      if (abandoned.length > 0) {
        await held.db
          .updateTable('event_claims')
          .set({ finished_at: sql`now()`, abandoned: true })
          .where('event_id', 'in', abandoned)
          .execute();
        this.logger.warn({ thread: event.thread, abandoned }, 'a replica died with these events unfinished');
      }
      const thread = event.thread;
      return {
        abandoned,
        release: async () => {
          try {
            await this.finish(held.db, event.id);
          } finally {
            await this.unlock(held, thread);
          }
        },
      };
    } catch (error) {
      // A broken connection takes its locks with it; give it back to the pool either way.
      if (locked) await this.unlock(held, event.thread).catch(() => {});
      else held.release();
      throw error;
    }
  }

  /**
   * Deletes claims older than `retentionMs`, and approval requests that expired longer ago than that
   * (nobody waits for them any more); returns how many claims.
   */
  async prune(retentionMs = claimRetentionMs): Promise<number> {
    const cutoff = new Date(Date.now() - retentionMs);
    const result = await this.db
      .deleteFrom('event_claims')
      .where('claimed_at', '<', cutoff)
      .executeTakeFirst();
    await this.db.deleteFrom('pending_approvals').where('expires_at', '<', cutoff).execute();
    return Number(result.numDeletedRows);
  }

  /** Stops pruning and gives up the liveness lock (its connection goes back to the pool). */
  async stop(): Promise<void> {
    this.started = false;
    clearInterval(this.pruner);
    this.pruner = undefined;
    const held = this.liveness;
    this.liveness = undefined;
    if (!held) return;
    await sql`select pg_advisory_unlock(${replicaLocks}, ${this.replicaKey})`
      .execute(held.db)
      .catch(() => {});
    held.release();
  }

  /**
   * Takes the liveness lock once at a time: a health check during start-up (or two at once) must not open
   * a second connection that waits on this replica's own lock.
   */
  private holdLiveness(): Promise<void> {
    this.holding ??= this.takeLiveness().finally(() => {
      this.holding = undefined;
    });
    return this.holding;
  }

  private async takeLiveness(): Promise<void> {
    if (this.engine !== 'postgres' || this.liveness) {
      if (this.engine !== 'postgres') await sql`select 1`.execute(this.db);
      return;
    }
    const held = await this.hold();
    try {
      await sql`select pg_advisory_lock(${replicaLocks}, ${this.replicaKey})`.execute(held.db);
    } catch (error) {
      held.release();
      throw error;
    }
    this.liveness = held;
  }

  private async finish(db: Kysely<Database>, id: string): Promise<void> {
    await db
      .updateTable('event_claims')
      .set({ finished_at: sql`now()` })
      .where('event_id', '=', id)
      .execute();
  }

  private async unlock(held: HeldConnection, thread: string): Promise<void> {
    try {
      await sql`select pg_advisory_unlock(${threadLocks}, hashtext(${thread}))`.execute(held.db);
    } finally {
      held.release();
    }
  }

  /** Borrows one pooled connection until `release()` (session locks live on it). */
  private hold(): Promise<HeldConnection> {
    return new Promise((resolve, reject) => {
      let release!: () => void;
      const released = new Promise<void>((done) => {
        release = done;
      });
      this.db
        .connection()
        .execute(async (db) => {
          resolve({ db, release });
          await released;
        })
        .catch(reject);
    });
  }
}
