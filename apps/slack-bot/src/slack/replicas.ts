import type { Logger } from '@ai-assistant/host-core';
import type { Coordination, EventClaim } from '@ai-assistant/store';
import type { Question } from './answer.js';
import type { Gate } from './work-queue.js';

/** The store as the health check sees it. */
export interface StoreHealthReport {
  engine: string;
  reachable: boolean;
}

/**
 * Whether this replica can reach its store. Checked every `everyMs` and on each `/healthz`; while it
 * cannot, `/healthz` answers 503 and Slack's requests are refused with 503 (Slack retries them later,
 * by then on a replica that can claim them).
 */
export class StoreHealth {
  private reachable = true;
  private timer: NodeJS.Timeout | undefined;
  /** The latest check, shared by `/healthz` requests within a second (a flood costs one query a second). */
  private latest: { at: number; report: Promise<StoreHealthReport> } | undefined;

  constructor(
    private readonly coordination: Coordination,
    private readonly logger: Logger,
    private readonly timeoutMs = 2000,
  ) {}

  /** False after a failed check or claim, until a check succeeds. */
  get ok(): boolean {
    return this.reachable;
  }

  start(everyMs = 5000): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.check(), everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The report for `/healthz`: a check at most a second old. */
  report(): Promise<StoreHealthReport> {
    if (!this.latest || Date.now() - this.latest.at > 1000)
      this.latest = { at: Date.now(), report: this.check() };
    return this.latest.report;
  }

  /** Checks now (bounded by the timeout). */
  async check(): Promise<StoreHealthReport> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.coordination.check(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer in ${this.timeoutMs} ms`)), this.timeoutMs);
        }),
      ]);
      if (!this.reachable) this.logger.info({}, 'store reachable again: taking events');
      this.reachable = true;
    } catch (error) {
      this.failed(error);
    } finally {
      clearTimeout(timer);
    }
    return { engine: this.coordination.engine, reachable: this.reachable };
  }

  /** A query failed: stop taking events until a check succeeds. */
  failed(error: unknown): void {
    if (this.reachable)
      this.logger.error({ error: String(error) }, 'store unreachable: refusing events until it is back');
    this.reachable = false;
  }
}

/** What a question needs to be claimed and ordered. */
export type ClaimedQuestion = Question & { eventId: string };

/** The thread key of a question: workspace, channel, thread. */
export function threadKey(question: Question): string {
  return `${question.team ?? ''}:${question.channel}:${question.threadTs}`;
}

/**
 * A Slack message ts (`1700000000.000100`: seconds, then millionths) as the message's order in its
 * thread for the store: whole millionths of a second. Undefined when it is no ts (the claim then
 * orders nothing, and a malformed payload never fails it).
 */
export function threadOrder(ts: string): number | undefined {
  const parts = /^(\d{1,10})(?:\.(\d{1,6}))?$/.exec(ts);
  if (!parts) return undefined;
  const order = Number(parts[1]) * 1_000_000 + Number((parts[2] ?? '').padEnd(6, '0'));
  return Number.isSafeInteger(order) ? order : undefined;
}

const claimOf = (question: ClaimedQuestion): EventClaim => {
  const order = threadOrder(question.messageTs);
  return {
    id: question.eventId,
    ...(question.team ? { workspace: question.team } : {}),
    thread: threadKey(question),
    ...(order !== undefined ? { order } : {}),
  };
};

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
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
 * Event claims and thread turns for the bot: an event is answered by the one replica whose claim
 * succeeds, and a thread's answers take turns across replicas (on PGlite, one process: its queue alone
 * orders the thread). When the store fails mid-way, the event is answered anyway.
 */
export class EventClaims {
  constructor(
    private readonly coordination: Coordination,
    private readonly health: StoreHealth,
    private readonly logger: Logger,
  ) {}

  /** True when this replica is to answer the event. */
  async claim(question: ClaimedQuestion): Promise<boolean> {
    try {
      return await this.coordination.claim(claimOf(question));
    } catch (error) {
      // Already acknowledged to Slack, so no retry will come: answer it. Until a health check reaches
      // the store again, Slack's next requests are refused with 503 and retried later, then claimed.
      this.health.failed(error);
      this.logger.warn(
        { eventId: question.eventId },
        'could not claim an event in the store; answering it anyway',
      );
      return true;
    }
  }

  /**
   * Gives a claim back (the replica took it but is shutting down): a retry of the event can then be
   * answered by another replica, and the thread's later messages do not wait for it.
   */
  async unclaim(question: ClaimedQuestion): Promise<void> {
    await this.coordination.unclaim(question.eventId).catch((error: unknown) => this.health.failed(error));
  }

  /**
   * The thread's turn for a question, for the work queue: `take()` tries once (undefined while another
   * replica answers in the thread, or an earlier message of it is unanswered); `wait()` is the pause
   * before the next try (25–250 ms, growing). On PGlite there is no turn to take. When `signal`
   * aborts (shutdown) or the store fails, the turn is granted: the answer then says it was interrupted,
   * or runs ordered by this process alone.
   */
  turn(question: Question, signal?: AbortSignal): Gate | undefined {
    const coordination = this.coordination;
    // PGlite serves one process: its queue alone orders a thread.
    if (coordination.engine !== 'postgres' || !question.eventId) return undefined;
    const claim = claimOf(question as ClaimedQuestion);
    const granted = { release: async () => {} };
    let tries = 0;
    return {
      take: async () => {
        if (signal?.aborted) return granted;
        try {
          return await coordination.tryTurn(claim);
        } catch (error) {
          this.health.failed(error);
          this.logger.warn(
            { eventId: claim.id },
            'could not take the thread’s turn in the store; answering anyway',
          );
          return granted;
        }
      },
      wait: () => pause(Math.min(250, 25 * 1.5 ** tries++) * (0.75 + Math.random() / 2), signal),
    };
  }
}
