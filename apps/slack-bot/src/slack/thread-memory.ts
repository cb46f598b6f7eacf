/**
 * The threads the bot takes part in (it answered there, or was mentioned), newest kept: a follow-up in
 * one of them is answered without reading the thread. Bounded, least recently used dropped first.
 */
export class ThreadMemory {
  private readonly threads = new Map<string, true>();

  constructor(private readonly capacity = 10_000) {}

  remember(channel: string, threadTs: string): void {
    const key = `${channel}:${threadTs}`;
    this.threads.delete(key);
    this.threads.set(key, true);
    if (this.threads.size > this.capacity) {
      const oldest = this.threads.keys().next().value;
      if (oldest !== undefined) this.threads.delete(oldest);
    }
  }

  has(channel: string, threadTs: string): boolean {
    const key = `${channel}:${threadTs}`;
    if (!this.threads.has(key)) return false;
    this.remember(channel, threadTs);
    return true;
  }

  get size(): number {
    return this.threads.size;
  }
}
