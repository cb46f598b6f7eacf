/** Remembers event ids for a while, so an event Slack delivers twice is answered once. */
export class EventDeduper {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly ttlMs = 10 * 60 * 1000,
    private readonly now: () => number = Date.now,
  ) {}

  /** True the first time an id is offered within the TTL, false after. */
  firstTime(id: string): boolean {
    const now = this.now();
    for (const [key, expires] of this.seen) {
      if (expires > now) break; // insertion order is expiry order
      this.seen.delete(key);
    }
    if (this.seen.has(id)) return false;
    this.seen.set(id, now + this.ttlMs);
    return true;
  }
}
