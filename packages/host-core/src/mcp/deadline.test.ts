import { AsyncLocalStorage } from 'node:async_hooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RequestDeadline } from './deadline.js';

describe('request deadlines on one shared timer', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
  afterEach(() => vi.useRealTimers());

  it('each expires at its own time, whatever order they were made in', () => {
    const late = new RequestDeadline(300, 10_000);
    const early = new RequestDeadline(100, 10_000);
    const middle = new RequestDeadline(200, 10_000);
    vi.advanceTimersByTime(150);
    expect([late.expired, early.expired, middle.expired]).toEqual([undefined, 'idle', undefined]);
    expect(early.aborted).toBe(true);
    vi.advanceTimersByTime(100);
    expect([late.expired, middle.expired]).toEqual([undefined, 'idle']);
    vi.advanceTimersByTime(100);
    expect(late.expired).toBe('idle');
    for (const deadline of [late, early, middle]) deadline.dispose();
  });

  it('progress restarts the idle wait; the total still ends it', () => {
    const deadline = new RequestDeadline(100, 250);
    const reports: number[] = [];
    deadline.onProgress = (report) => reports.push(report.progress);
    vi.advanceTimersByTime(80);
    deadline.progressed({ progress: 1 });
    vi.advanceTimersByTime(80);
    deadline.progressed({ progress: 2 });
    vi.advanceTimersByTime(80);
    expect(deadline.expired).toBeUndefined();
    deadline.progressed({ progress: 3 });
    vi.advanceTimersByTime(20);
    expect(deadline.expired).toBe('total');
    expect(reports).toEqual([1, 2, 3]);
    deadline.dispose();
  });

  it('a paused deadline never fires while others do; it resumes with the time it had left', () => {
    const paused = new RequestDeadline(100, 10_000);
    const other = new RequestDeadline(100, 10_000);
    vi.advanceTimersByTime(60);
    paused.pause();
    vi.advanceTimersByTime(1_000);
    expect([paused.expired, other.expired]).toEqual([undefined, 'idle']);
    paused.resume();
    vi.advanceTimersByTime(99);
    expect(paused.expired).toBeUndefined();
    vi.advanceTimersByTime(2);
    expect(paused.expired).toBe('idle');
    paused.dispose();
    other.dispose();
  });

  it('a disposed deadline never fires; the caller aborting aborts it, without expiry', () => {
    const disposed = new RequestDeadline(50, 10_000);
    disposed.dispose();
    const caller = new AbortController();
    const linked = new RequestDeadline(50, 10_000, caller.signal);
    const heard: string[] = [];
    linked.signal.addEventListener('abort', () => heard.push('abort'));
    caller.abort(new Error('stop'));
    vi.advanceTimersByTime(100);
    expect(disposed.aborted).toBe(false);
    expect([linked.aborted, linked.expired, heard]).toEqual([true, undefined, ['abort']]);
    expect(linked.signal.aborted).toBe(true);
    linked.dispose();
  });

  it('an ended request passes its signal on only when it never aborted and nothing listens to it', () => {
    const first = new RequestDeadline(1000, 10_000);
    const kept = first.signal;
    first.dispose(true);
    const second = new RequestDeadline(1000, 10_000);
    // Passed on: the next request has the same signal, and the first can no longer abort it.
    expect(second.signal).toBe(kept);
    first.expire();
    expect(kept.aborted).toBe(false);

    const listened = second.signal;
    listened.addEventListener('abort', () => {});
    second.dispose(true);
    const aborted = new RequestDeadline(100, 10_000);
    expect(aborted.signal).not.toBe(listened);
    const abortedSignal = aborted.signal;
    vi.advanceTimersByTime(150);
    expect(abortedSignal.aborted).toBe(true);
    aborted.dispose(true);
    const local = new RequestDeadline(1000, 10_000);
    expect(local.signal).not.toBe(abortedSignal);
    const localSignal = local.signal;
    // A local server's request (its fetch may still hold the signal) never passes it on.
    local.dispose(false);
    const last = new RequestDeadline(1000, 10_000);
    expect(last.signal).not.toBe(localSignal);
    last.dispose();
  });

  it("an expiry runs its listeners in its own request's context, whatever context the timer fires in", () => {
    const person = new AsyncLocalStorage<string>();
    const deadline = new RequestDeadline(100, 10_000);
    deadline.within = (work) => person.run('B', work);
    const heard: Array<string | undefined> = [];
    deadline.signal.addEventListener('abort', () => heard.push(person.getStore()));
    // Another person's request is what the shared timer fires in (before: B's cancellation went with A's).
    person.run('A', () => vi.advanceTimersByTime(150));
    expect(heard).toEqual(['B']);
    deadline.dispose();
  });
});
