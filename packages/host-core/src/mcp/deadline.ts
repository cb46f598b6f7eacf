/**
 * A request's own deadline: `idleMs` without news from the server ends it, progress restarts that
 * wait, and `maxMs` of active time ends it in all. While the server waits on a person (an elicitation,
 * a sampling approval) the clock is paused: a person's answering time is never the server's fault.
 */
/**
 * The part of an AbortSignal the SDK's request path reads (aborted, reason, throwIfAborted, 'abort'
 * listeners). Node's AbortController costs microseconds per request in allocation and GC; this costs
 * one small object. A real AbortSignal is made only when something asks for one (a local server's fetch).
 */
class RequestSignal {
  aborted = false;
  reason: unknown;
  private listeners: Array<() => void> | undefined;
  addEventListener(_type: 'abort', listener: () => void): void {
    this.listeners ??= [];
    this.listeners.push(listener);
  }
  removeEventListener(_type: 'abort', listener: () => void): void {
    const at = this.listeners?.indexOf(listener) ?? -1;
    if (at >= 0) this.listeners?.splice(at, 1);
  }
  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason ?? new DOMException('This operation was aborted', 'AbortError');
    for (const listener of this.listeners?.splice(0) ?? []) listener();
  }
}

export class RequestDeadline {
  private readonly light = new RequestSignal();
  private real: AbortController | undefined;
  private readonly controller = {
    abort: (reason?: unknown) => {
      this.light.abort(reason);
      this.real?.abort(this.light.reason);
    },
  };
  private timer: NodeJS.Timeout | undefined;
  private paused = 0;
  /** Active time spent before the current stretch, and when the current stretch began. */
  private spent = 0;
  private since = performance.now();
  /** Why it ended: no news for `idleMs`, or `maxMs` in all. */
  expired: 'idle' | 'total' | undefined;

  constructor(
    private readonly idleMs: number,
    private readonly maxMs: number,
    /** The caller's signal: aborting it aborts this one too (then `expired` stays unset). */
    private readonly outer?: AbortSignal,
  ) {
    outer?.addEventListener('abort', this.onOuterAbort, { once: true });
    this.arm();
  }

  private readonly onOuterAbort = () => {
    clearTimeout(this.timer);
    this.controller.abort(this.outer?.reason);
  };

  /** Aborts when the deadline passes or the caller's signal aborts. */
  get signal(): AbortSignal {
    if (!this.real) {
      this.real = new AbortController();
      if (this.light.aborted) this.real.abort(this.light.reason);
    }
    return this.real.signal;
  }

  /** The same, as the SDK's request options read it (no Node AbortController per request). */
  get requestSignal(): AbortSignal {
    return this.light as unknown as AbortSignal;
  }

  /** News from the server (progress): the idle wait starts over. */
  reset(): void {
    if (this.paused === 0 && !this.expired) this.arm();
  }

  /** The server waits on a person: the clock stops until every pause is resumed. */
  pause(): void {
    if (this.paused++ === 0) {
      clearTimeout(this.timer);
      this.spent += performance.now() - this.since;
    }
  }

  resume(): void {
    if (this.paused === 0 || --this.paused > 0 || this.expired) return;
    this.since = performance.now();
    this.arm();
  }

  /** Stops the clock for good (the request ended). */
  dispose(): void {
    clearTimeout(this.timer);
    this.outer?.removeEventListener('abort', this.onOuterAbort);
  }

  private arm(): void {
    clearTimeout(this.timer);
    const left = this.maxMs - this.spent - (performance.now() - this.since);
    const wait = Math.max(0, Math.min(this.idleMs, left));
    const total = left <= this.idleMs;
    this.timer = setTimeout(() => {
      this.expired = total ? 'total' : 'idle';
      this.controller.abort();
    }, wait);
    this.timer.unref?.();
  }
}
