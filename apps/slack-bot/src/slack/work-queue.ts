/**
 * Runs jobs one at a time per key (a Slack thread), in arrival order, with at most `limit` jobs
 * running across all keys. `drain()` waits for everything accepted so far.
 */
export class WorkQueue {
  private readonly tails = new Map<string, Promise<void>>();
  private readonly pending = new Set<Promise<void>>();
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private closed = false;

  constructor(private readonly limit: number) {}

  /** Queues a job behind earlier jobs of the same key; false when the queue no longer accepts work. */
  push(key: string, job: () => Promise<void>): boolean {
    if (this.closed) return false;
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.then(() => this.withSlot(job));
    const settled = next.catch(() => {});
    this.tails.set(key, settled);
    this.pending.add(settled);
    void settled.then(() => {
      this.pending.delete(settled);
      if (this.tails.get(key) === settled) this.tails.delete(key);
    });
    return true;
  }

  /** Whether a job pushed now for `key` would wait: its thread has one running, or every slot is taken. */
  wouldWait(key: string): boolean {
    return this.tails.has(key) || this.running >= this.limit;
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

  private async withSlot(job: () => Promise<void>): Promise<void> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    try {
      await job();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }
}
