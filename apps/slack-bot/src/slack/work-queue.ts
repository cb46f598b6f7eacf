/** A turn to wait for before a job runs (a thread's turn across replicas). */
export interface Gate {
  /** Tries once; undefined when it is not this job's turn yet. */
  take(): Promise<{ release(): Promise<void> } | undefined>;
  /** The pause before the next try. */
  wait(): Promise<void>;
}

/** What a running job may do with its slot. */
export interface Slot {
  /**
   * Runs `work` (waiting for a person) with the slot given back meanwhile, so other threads answer;
   * takes a slot again before it returns. Calls that overlap give the slot back once.
   */
  away<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * Runs jobs one at a time per key (a Slack thread), in arrival order, with at most `limit` jobs
 * running across all keys. `drain()` waits for everything accepted so far.
 */
export class WorkQueue {
  private readonly tails = new Map<string, Promise<void>>();
  /** Jobs not yet finished per group (a thread), for {@link wouldWait}. */
  private readonly groups = new Map<string, number>();
  private readonly pending = new Set<Promise<void>>();
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private closed = false;

  constructor(private readonly limit: number) {}

  /** Queues a job behind earlier jobs of the same key; false when the queue no longer accepts work. */
  push(key: string, job: (slot: Slot) => Promise<void>, gate?: Gate, group: string = key): boolean {
    if (this.closed) return false;
    this.groups.set(group, (this.groups.get(group) ?? 0) + 1);
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.then(() => this.withSlot(job, gate));
    const settled = next.catch(() => {});
    this.tails.set(key, settled);
    this.pending.add(settled);
    void settled.then(() => {
      this.pending.delete(settled);
      if (this.tails.get(key) === settled) this.tails.delete(key);
      const left = (this.groups.get(group) ?? 1) - 1;
      if (left > 0) this.groups.set(group, left);
      else this.groups.delete(group);
    });
    return true;
  }

  /** Whether a job pushed now for `group` would wait: its thread has one unfinished, or every slot is taken. */
  wouldWait(group: string): boolean {
    return this.groups.has(group) || this.running >= this.limit;
  }

  /** False once `drain()` has begun. */
  get accepting(): boolean {
    return !this.closed;
  }

  /** Jobs accepted and not yet finished. */
  get size(): number {
    return this.pending.size;
  }

  /** Stops accepting work and resolves when every accepted job has finished (or `timeoutMs` passed). */
  async drain(timeoutMs: number): Promise<boolean> {
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      (async () => {
        while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
        return true;
      })(),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    return finished;
  }

  /**
   * Runs the job in a slot. With a gate, the slot is held only once the gate opens: a job whose turn
   * has not come gives its slot back while it waits, so other threads run meanwhile.
   */
  private async withSlot(job: (slot: Slot) => Promise<void>, gate?: Gate): Promise<void> {
    for (;;) {
      await this.takeSlot();
      let turn: { release(): Promise<void> } | undefined;
      let away = 0;
      const slot: Slot = {
        away: async (work) => {
          if (away++ === 0) this.giveSlot();
          try {
            return await work();
          } finally {
            if (--away === 0) await this.takeSlot();
          }
        },
      };
      try {
        turn = gate ? await gate.take() : { release: async () => {} };
        if (turn) await job(slot);
      } finally {
        await turn?.release().catch(() => {});
        this.giveSlot();
      }
      if (turn) return;
      await gate?.wait();
    }
  }

  private async takeSlot(): Promise<void> {
    if (this.running < this.limit) {
      this.running++;
      return;
    }
    // Handed over by giveSlot: the count stays, so no one can slip in between.
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private giveSlot(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}
