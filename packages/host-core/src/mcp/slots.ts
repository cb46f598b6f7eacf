/** At most `limit` requests per server at once; the rest wait their turn in arrival order. */
export class Slots {
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(private readonly limit: number) {}

  /**
   * Takes a slot of `key`: at once (undefined, no promise made) when one is free, else a promise that
   * resolves when a finishing request hands its slot over. Every taken slot is given back with `release`.
   */
  acquire(key: string): Promise<void> | undefined {
    const running = this.running.get(key) ?? 0;
    if (running < this.limit) {
      this.running.set(key, running + 1);
      return undefined;
    }
    return new Promise<void>((resolve) => {
      const queue = this.waiting.get(key);
      if (queue) queue.push(resolve);
      else this.waiting.set(key, [resolve]);
    });
  }

  /** Gives a slot back: it passes straight to the next caller, or is freed. */
  release(key: string): void {
    const queue = this.waiting.get(key);
    const next = queue?.shift();
    if (next) {
      if (queue?.length === 0) this.waiting.delete(key);
      next();
      return;
    }
    const left = (this.running.get(key) ?? 1) - 1;
    // Keys come and go (one per person for per-person connections): an idle key is forgotten.
    if (left > 0) this.running.set(key, left);
    else this.running.delete(key);
  }
}
