import type { Logger } from '@ai-assistant/chat-types';
import type { OrphanRun, ScheduleRecord, Schedules } from '@ai-assistant/store';
import { localTime, nextOccurrence } from './schedule-times.js';

/** One occurrence this replica runs: the schedule as claimed and the time it was due. */
export interface Occurrence {
  schedule: ScheduleRecord;
  dueAt: Date;
  /** Whether a replica that died had claimed it first. */
  takenOver: boolean;
  /**
   * Fires when this replica stops: the run should end at once. A run that ends so is left unrecorded,
   * for a replica (this one restarted, or another) to take over.
   */
  signal: AbortSignal;
  /**
   * Call just before the one post that makes the occurrence visible: false when it must not post (the
   * schedule was paused or deleted meanwhile, or the run is no longer this replica's).
   */
  beginPosting(): Promise<boolean>;
}

/** How a run ended, as the schedule's last result records it. */
export interface OccurrenceResult {
  state: 'posted' | 'failed' | 'skipped';
  messageTs?: string;
  /** For the owner (App Home, a DM): what was posted or why not. */
  detail?: string;
}

/** What a {@link Scheduler} needs. */
export interface SchedulerOptions {
  schedules: Schedules;
  /** Runs one occurrence as its owner; a throw is recorded as a failure with its message. */
  run(occurrence: Occurrence): Promise<OccurrenceResult>;
  /**
   * An occurrence whose replica died while posting it: it is reported failed and never posted again;
   * the app tells the owner.
   */
  interrupted?(schedule: ScheduleRecord, dueAt: Date): Promise<void>;
  logger: Logger;
  /** The clock (tests inject one). */
  now?: () => Date;
  /** An occurrence missed by less than this when a replica finds it still runs (once); older ones are skipped. */
  graceMs?: number;
  /** Occurrences this replica runs at once; past it, it claims no more until one ends. */
  concurrency?: number;
  /** Due schedules read per tick. */
  batch?: number;
}

/** What one tick did. */
export interface TickReport {
  claimed: number;
  missed: number;
  takenOver: number;
  interrupted: number;
}

/** The default grace for missed occurrences: a quarter of an hour. */
export const defaultGraceMs = 15 * 60_000;

/**
 * Runs people's schedules on this replica. Each tick takes over the runs of replicas that died, then
 * claims due occurrences (one replica wins each: see `Schedules.claim`) up to its concurrency, and
 * starts their runs. An occurrence missed by more than the grace (no replica ran) is skipped and noted.
 */
export class Scheduler {
  private readonly running = new Set<Promise<void>>();
  private readonly shutdown = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<TickReport> | undefined;
  private stopped = false;

  constructor(private readonly options: SchedulerOptions) {}

  private get now(): Date {
    return this.options.now?.() ?? new Date();
  }

  private get room(): number {
    return (this.options.concurrency ?? 4) - this.running.size;
  }

  /** One pass; overlapping calls share the pass in progress. */
  tick(): Promise<TickReport> {
    if (this.ticking) return this.ticking;
    this.ticking = this.pass().finally(() => {
      this.ticking = undefined;
    });
    return this.ticking;
  }

  private async pass(): Promise<TickReport> {
    const report: TickReport = { claimed: 0, missed: 0, takenOver: 0, interrupted: 0 };
    if (this.stopped) return report;
    const { schedules } = this.options;
    for (const orphan of await schedules.orphans()) {
      if (this.room <= 0 && orphan.state === 'running') break;
      if (!(await schedules.takeOver(orphan))) continue;
      if (orphan.state === 'posting') {
        report.interrupted++;
        await this.interrupted(orphan);
        continue;
      }
      const schedule = await schedules.get(orphan.scheduleId);
      if (schedule?.state !== 'active') {
        await schedules.finish(orphan.scheduleId, orphan.dueAt, {
          state: 'skipped',
          detail: 'paused or deleted before its run ended',
        });
        continue;
      }
      report.takenOver++;
      this.options.logger.info(
        { schedule: schedule.id, dueAt: orphan.dueAt, from: orphan.replicaKey },
        'took over a scheduled run whose replica stopped',
      );
      this.start(schedule, orphan.dueAt, true);
    }
    const now = this.now;
    const grace = this.options.graceMs ?? defaultGraceMs;
    const due = this.room > 0 ? await schedules.due(now, this.options.batch ?? 100) : [];
    for (const schedule of due) {
      if (this.room <= 0 || this.stopped) break;
      const dueAt = schedule.nextRunAt as Date;
      let next: Date | undefined;
      try {
        next = nextOccurrence(schedule.cron, schedule.timeZone, now);
      } catch (error) {
        // A row whose times no longer read (edited by hand): stop it rather than try every tick.
        await schedules.setState(schedule.id, 'stopped', {
          reason: `its times cannot be read: ${String(error)}`,
        });
        continue;
      }
      if (now.getTime() - dueAt.getTime() > grace) {
        const detail = `missed ${localTime(dueAt, schedule.timeZone)} while no replica ran; the next run is ${next ? localTime(next, schedule.timeZone) : 'none'}`;
        if (await schedules.skipMissed(schedule.id, dueAt, next, detail)) report.missed++;
        continue;
      }
      if (!(await schedules.claim(schedule.id, dueAt, next))) continue;
      report.claimed++;
      this.start(schedule, dueAt, false);
    }
    return report;
  }

  private async interrupted(orphan: OrphanRun): Promise<void> {
    const { schedules, logger } = this.options;
    await schedules.finish(orphan.scheduleId, orphan.dueAt, {
      state: 'failed',
      detail: 'the replica running it stopped while posting; it was not posted again',
    });
    const schedule = await schedules.get(orphan.scheduleId);
    if (schedule)
      await this.options
        .interrupted?.(schedule, orphan.dueAt)
        .catch((error: unknown) =>
          logger.warn({ schedule: schedule.id, error }, 'could not tell the owner of an interrupted run'),
        );
  }

  private start(schedule: ScheduleRecord, dueAt: Date, takenOver: boolean): void {
    const { schedules, logger } = this.options;
    const occurrence: Occurrence = {
      schedule,
      dueAt,
      takenOver,
      signal: this.shutdown.signal,
      beginPosting: async () => {
        const current = await schedules.get(schedule.id);
        if (current?.state !== 'active') return false;
        return schedules.posting(schedule.id, dueAt);
      },
    };
    const run = (async () => {
      let result: OccurrenceResult;
      try {
        result = await this.options.run(occurrence);
      } catch (error) {
        if (this.shutdown.signal.aborted) {
          // Stopped mid-run: left as it is, taken over after this replica stops.
          logger.info(
            { schedule: schedule.id },
            'a scheduled run stopped with the replica; another takes it over',
          );
          return;
        }
        logger.error({ schedule: schedule.id, error }, 'a scheduled run failed');
        result = { state: 'failed', detail: error instanceof Error ? error.message : String(error) };
      }
      await schedules.finish(schedule.id, dueAt, result);
    })()
      .catch((error: unknown) =>
        logger.error({ schedule: schedule.id, error }, 'could not record a scheduled run'),
      )
      .finally(() => {
        this.running.delete(run);
      });
    this.running.add(run);
  }

  /** Ticks every `everyMs` (and once now) until `stop`. */
  startTicking(everyMs: number): void {
    const tick = () =>
      void this.tick().catch((error: unknown) =>
        this.options.logger.warn({ error }, 'a scheduler tick failed'),
      );
    tick();
    this.timer = setInterval(tick, everyMs);
    this.timer.unref();
  }

  /** Resolves when every run started so far has ended. */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /**
   * Stops ticking; runs in progress get `graceMs` to end, then their signal fires (those that end so are
   * taken over later, by this replica restarted or another).
   */
  async stop(graceMs = 0): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.ticking?.catch(() => undefined);
    const grace = setTimeout(() => this.shutdown.abort(), graceMs);
    await this.settled();
    clearTimeout(grace);
  }
}
