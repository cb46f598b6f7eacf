/** An answer's time when the caller sets none (`ANSWER_TIMEOUT_MS`). */
export const defaultAnswerTimeoutMs = 120_000;

/**
 * An answer's deadline, paused while a person is asked (an approval, a server's question): their time
 * is not the model's. Before it, a wrap-up: only the reserve is left, so the loop starts no new round of
 * tools and asks the model for its answer from what it has.
 */
export class AnswerDeadline {
  private readonly controller = new AbortController();
  private readonly wrapUpController = new AbortController();
  private timers: NodeJS.Timeout[] = [];
  private left: number;
  private started = Date.now();
  private paused = 0;
  /** Kept for the last model call: a quarter of the time, at most 30 s. */
  private readonly reserve: number;

  constructor(readonly ms: number) {
    this.left = ms;
    this.reserve = Math.min(30_000, Math.floor(ms / 4));
    this.resume();
  }

  /** Fires at the deadline: whatever still runs is cancelled. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Fires when only the reserve is left: no more tools, the answer from what is known. */
  get wrapUp(): AbortSignal {
    return this.wrapUpController.signal;
  }

  /** Runs `asking` with the clock stopped (nested and parallel askings count: parallel approvals). */
  async during<T>(asking: () => Promise<T>): Promise<T> {
    this.pause();
    try {
      return await asking();
    } finally {
      this.resume();
    }
  }

  /** Stops the timers for good (the answer is done). */
  clear(): void {
    for (const timer of this.timers) clearTimeout(timer);
  }

  private pause(): void {
    if (this.paused++ > 0) return;
    this.clear();
    this.left -= Date.now() - this.started;
  }

  private resume(): void {
    if (this.paused > 0 && --this.paused > 0) return;
    this.started = Date.now();
    this.timers = [
      setTimeout(() => this.wrapUpController.abort(), Math.max(0, this.left - this.reserve)),
      setTimeout(() => this.controller.abort(), Math.max(0, this.left)),
    ];
    for (const timer of this.timers) timer.unref();
  }
}
