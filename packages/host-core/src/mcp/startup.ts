import { availableParallelism } from 'node:os';

// How shared servers start: a few at a time, each under a limit that grows when the machine is slow.

/** The longest limit, as a multiple of the entry's own: 60 s for the default 10 s. */
const maxLimitFactor = 6;

/**
 * The limits of one start's attempts: the entry's limit, doubled after each attempt that runs out of
 * time, up to six times it (10 s → 10, 20, 40, 60 s). On a busy machine every server is slow at once;
 * failing them all under one fixed limit, to retry them all together later, only repeats the crowd.
 */
export function startupLimits(baseMs: number): number[] {
  const cap = baseMs * maxLimitFactor;
  const limits = [baseMs];
  while ((limits.at(-1) as number) < cap) limits.push(Math.min((limits.at(-1) as number) * 2, cap));
  return limits;
}

/**
 * Default number of servers starting at once: twice the cores (4 on a 2-core machine), at least 2. A
 * start is mostly a process loading its code (CPU); a little more than the cores covers the time each
 * waits on the disk or the network (npx).
 */
export const defaultStartConcurrency = (): number => Math.max(2, 2 * availableParallelism());

/**
 * At most `limit` starts at once, the rest in arrival order; `hurry` moves a waiting server to the
 * front (a call is waiting for it). A start's attempts all run in its one turn.
 */
export class StartQueue {
  private running = 0;
  private readonly waiting: Array<{ key: string; go: () => void }> = [];

  constructor(private readonly limit: number) {}

  /** Runs `task` in its turn; resolves or rejects with it. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const go = () => {
        this.running++;
        task()
          .then(resolve, reject)
          .finally(() => {
            this.running--;
            this.waiting.shift()?.go();
          });
      };
      if (this.running < this.limit) go();
      else this.waiting.push({ key, go });
    });
  }

  /** Moves `key`'s waiting start to the front, if it waits. */
  hurry(key: string): void {
    const index = this.waiting.findIndex((entry) => entry.key === key);
    if (index <= 0) return;
    const [entry] = this.waiting.splice(index, 1);
    if (entry) this.waiting.unshift(entry);
  }
}
