/** At most `limit` requests per server at once; the rest wait their turn in arrival order. */
export class Slots {
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(private readonly limit: number) {}

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    if ((this.running.get(key) ?? 0) >= this.limit) {
      await new Promise<void>((resolve) => {
        const queue = this.waiting.get(key) ?? [];
        queue.push(resolve);
        this.waiting.set(key, queue);
      });
    } else {
      this.running.set(key, (this.running.get(key) ?? 0) + 1);
    }
    try {
      return await work();
    } finally {
      const next = this.waiting.get(key)?.shift();
      // The slot passes straight to the next caller, or is given back.
      if (next) next();
      else {
        const left = (this.running.get(key) ?? 1) - 1;
        // Keys come and go (one per person for per-person connections): an idle key is forgotten.
        if (left > 0) this.running.set(key, left);
        else {
          this.running.delete(key);
          this.waiting.delete(key);
        }
      }
    }
  }
}
