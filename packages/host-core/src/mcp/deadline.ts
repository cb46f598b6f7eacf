import { AsyncLocalStorage } from 'node:async_hooks';
import { getEventListeners } from 'node:events';
import type { Redactor } from '../redaction.js';
import type { CallToolOptions } from '../tool-host.js';

/**
 * The context of no request: the shared timer is armed in it, so that it never carries one person's
 * request context (their tokens) into another's deadline.
 */
const noRequest = AsyncLocalStorage.snapshot();

/**
 * Every running request's deadline, on one timer armed for the earliest. A timer per request would
 * cost each call a Node Timeout (allocation, two list operations, its collection); here a request adds
 * itself to a set, and the timer is re-armed only when a deadline comes earlier than the one it waits for.
 */
class DeadlineClock {
  private readonly running = new Set<RequestDeadline>();
  private timer: NodeJS.Timeout | undefined;
  private timerDue = Number.POSITIVE_INFINITY;

  schedule(deadline: RequestDeadline): void {
    this.running.add(deadline);
    if (deadline.due < this.timerDue) this.arm(deadline.due);
  }

  /**
   * The timer stays armed when the last request ends (it is unref'd, and finds nothing due when it
   * fires): one request after another then costs no timer at all, since each new deadline comes later
   * than the one the timer already waits for.
   */
  cancel(deadline: RequestDeadline): void {
    this.running.delete(deadline);
  }

  private arm(due: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = noRequest(() => setTimeout(this.fire, Math.max(0, due - performance.now())));
    this.timer.unref?.();
  }

  private readonly fire = () => {
    this.timer = undefined;
    this.timerDue = Number.POSITIVE_INFINITY;
    // Timers keep whole milliseconds: a deadline within one of now is due.
    const now = performance.now() + 1;
    let next = Number.POSITIVE_INFINITY;
    for (const deadline of [...this.running]) {
      if (deadline.due <= now) {
        this.running.delete(deadline);
        deadline.expire();
      } else if (deadline.due < next) next = deadline.due;
    }
    if (next !== Number.POSITIVE_INFINITY) this.arm(next);
  };
}

const clock = new DeadlineClock();

/**
 * Controllers whose requests ended neither aborted nor listened to: the next requests' signals. Making
 * an AbortController costs a call more than anything else the host adds to it (a sixth of the host's
 * own time at 32 calls in flight); one that never aborted and has no listener left is as good as new.
 */
const spareControllers: AbortController[] = [];
const mostSpare = 256;

/**
 * A request's own deadline: `idleMs` without news from the server ends it, progress restarts that
 * wait, and `maxMs` of active time ends it in all. While the server waits on a person (an elicitation,
 * a sampling approval) the clock is paused: a person's answering time is never the server's fault.
 *
 * Its `signal` (a real AbortSignal) is the one the SDK's request gets. And it is the connection's
 * record of the request in flight: who asked, and who answers the server's questions.
 */
export class RequestDeadline {
  requester: CallToolOptions['requester'];
  elicit: CallToolOptions['elicit'];
  sample: CallToolOptions['sample'];
  /** The progress token the request carries (`_meta.progressToken`), unique on its connection. */
  token = 0;
  /**
   * Runs the abort's listeners in the request's own context (its tokens, over HTTP): a cancellation
   * they send goes with the asker's credentials whatever aborted it (the shared timer, the caller).
   */
  within: (<T>(work: () => T) => T) | undefined;
  /** Hides the request's secrets in what the server asks the person (its questions reach a thread). */
  redactor: Redactor | undefined;
  secrets: string[] | undefined;
  /** Where the server's progress reports go (set only when the caller asked for them). */
  onProgress: ((progress: { progress: number; total?: number; message?: string }) => void) | undefined;
  /** When it fires (performance.now() time), while the clock runs. */
  due = 0;
  /** Why it ended: no news for `idleMs`, or `maxMs` in all. */
  expired: 'idle' | 'total' | undefined;
  aborted = false;
  reason: unknown;
  private real: AbortController | undefined;
  private endsTotal = false;
  private paused = 0;
  /** Active time spent before the current stretch, and when the current stretch began. */
  private spent = 0;
  private since = performance.now();
  private onOuterAbort: (() => void) | undefined;

  constructor(
    /** Without news from the server this long, it ends. */
    readonly idleMs: number,
    /** Of active time in all, it ends. */
    readonly maxMs: number,
    /** The caller's signal: aborting it aborts this one too (then `expired` stays unset). */
    private readonly outer?: AbortSignal,
  ) {
    if (outer) {
      this.onOuterAbort = () => {
        clock.cancel(this);
        this.abort(outer.reason);
      };
      outer.addEventListener('abort', this.onOuterAbort, { once: true });
    }
    this.arm();
  }

  /** Aborts when the deadline passes or the caller's signal aborts. */
  get signal(): AbortSignal {
    if (!this.real) {
      this.real = spareControllers.pop() ?? new AbortController();
      if (this.aborted) this.real.abort(this.reason);
    }
    return this.real.signal;
  }

  /** `text` with the request's secrets hidden. */
  hide(text: string): string {
    return this.redactor ? this.redactor.redact(text, this.secrets) : text;
  }

  /** The server reported progress: the idle wait starts over, and the caller hears of it. */
  progressed(progress: { progress: number; total?: number; message?: string }): void {
    this.reset();
    this.onProgress?.(progress);
  }

  /** News from the server (progress): the idle wait starts over. */
  reset(): void {
    if (this.paused === 0 && !this.expired) this.arm();
  }

  /** The server waits on a person: the clock stops until every pause is resumed. */
  pause(): void {
    if (this.paused++ === 0) {
      clock.cancel(this);
      this.spent += performance.now() - this.since;
    }
  }

  resume(): void {
    if (this.paused === 0 || --this.paused > 0 || this.expired) return;
    this.since = performance.now();
    this.arm();
  }

  /**
   * Stops the clock for good (the request ended). `reuse`: its signal went only where its listeners are
   * removed when the request ends (the SDK's requests), so if it never aborted and no listener is left,
   * the next request may have it. Nothing of this request can abort it any more.
   */
  dispose(reuse = false): void {
    clock.cancel(this);
    if (this.onOuterAbort) this.outer?.removeEventListener('abort', this.onOuterAbort);
    const real = this.real;
    this.real = undefined;
    if (
      reuse &&
      real &&
      !this.aborted &&
      spareControllers.length < mostSpare &&
      getEventListeners(real.signal, 'abort').length === 0
    )
      spareControllers.push(real);
  }

  /** Called by the clock when `due` has passed. */
  expire(): void {
    this.expired = this.endsTotal ? 'total' : 'idle';
    this.abort();
  }

  private abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason ?? new DOMException('This operation was aborted', 'AbortError');
    const real = this.real;
    if (!real) return;
    if (this.within) this.within(() => real.abort(this.reason));
    else real.abort(this.reason);
  }

  private arm(): void {
    const now = performance.now();
    const left = this.maxMs - this.spent - (now - this.since);
    this.endsTotal = left <= this.idleMs;
    this.due = now + Math.max(0, Math.min(this.idleMs, left));
    clock.schedule(this);
  }
}
