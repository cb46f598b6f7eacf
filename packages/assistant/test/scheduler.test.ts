import { rmSync } from 'node:fs';
import { openStore, type Store } from '@ai-assistant/store';
import { embeddedStoreFolder, recordingLogger } from '@ai-assistant/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { type Occurrence, Scheduler } from '../src/index.js';

let store: Store | undefined;
let folder: string | undefined;
afterEach(async () => {
  await store?.close();
  if (folder) rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
  store = undefined;
});

async function open(): Promise<Store> {
  folder = embeddedStoreFolder('scheduler-');
  store = await openStore({ dataDir: folder, env: {}, logger: recordingLogger() });
  return store;
}

const base = {
  workspace: 'T1',
  owner: 'U1',
  channel: 'C1',
  question: 'q',
  cron: '0 8 * * *',
  timeZone: 'Asia/Tokyo',
  description: '毎朝8時',
  approvedTools: [],
};

describe('the scheduler', () => {
  it('#47 an occurrence missed while no replica ran runs once within the grace, else is skipped and noted', async () => {
    const schedules = (await open()).schedules;
    let now = new Date('2026-11-27T23:10:00Z'); // ten minutes after 08:00 in Tokyo
    const late = await schedules.create({ ...base, nextRunAt: new Date('2026-11-27T23:00:00Z') });
    // Three days of 08:00s passed while nothing ran.
    const long = await schedules.create({
      ...base,
      question: 'long',
      nextRunAt: new Date('2026-11-24T23:00:00Z'),
    });
    const runs: Occurrence[] = [];
    const scheduler = new Scheduler({
      schedules,
      logger: recordingLogger(),
      now: () => now,
      graceMs: 15 * 60_000,
      run: async (occurrence) => {
        runs.push(occurrence);
        return (await occurrence.beginPosting())
          ? { state: 'posted', messageTs: '1.1' }
          : { state: 'skipped' };
      },
    });
    expect(await scheduler.tick()).toMatchObject({ claimed: 1, missed: 1 });
    await scheduler.settled();
    expect(runs.map((run) => [run.schedule.question, run.dueAt.toISOString()])).toEqual([
      ['q', '2026-11-27T23:00:00.000Z'],
    ]);
    expect(await schedules.get(late.id)).toMatchObject({
      lastStatus: 'posted',
      nextRunAt: new Date('2026-11-28T23:00:00Z'),
    });
    const skipped = await schedules.get(long.id);
    expect(skipped).toMatchObject({ lastStatus: 'missed', nextRunAt: new Date('2026-11-28T23:00:00Z') });
    expect(skipped?.lastDetail).toContain('missed 11/25(水) 08:00 while no replica ran');
    // A second pass at the same time runs nothing again.
    expect(await scheduler.tick()).toMatchObject({ claimed: 0, missed: 0 });
    now = new Date('2026-11-28T23:00:00Z');
    expect(await scheduler.tick()).toMatchObject({ claimed: 2 });
    await scheduler.stop();
  });

  it('#47 a schedule paused while its run works does not post; a run that throws is recorded as failed', async () => {
    const schedules = (await open()).schedules;
    const now = new Date('2026-11-27T23:00:00Z');
    const paused = await schedules.create({ ...base, nextRunAt: now });
    const throwing = await schedules.create({ ...base, question: 'throws', nextRunAt: now });
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = 0;
    const scheduler = new Scheduler({
      schedules,
      logger: recordingLogger(),
      now: () => now,
      run: async (occurrence) => {
        started++;
        if (occurrence.schedule.question === 'throws') throw new Error('the model is down');
        await held;
        return (await occurrence.beginPosting())
          ? { state: 'posted' }
          : { state: 'skipped', detail: 'paused or deleted while it ran' };
      },
    });
    await scheduler.tick();
    expect(started).toBe(2);
    await schedules.setState(paused.id, 'paused');
    release();
    await scheduler.settled();
    expect(await schedules.get(paused.id)).toMatchObject({ state: 'paused', lastStatus: 'skipped' });
    expect(await schedules.get(throwing.id)).toMatchObject({
      lastStatus: 'failed',
      lastDetail: 'the model is down',
    });
    expect((await schedules.runsOf(paused.id))[0]).toMatchObject({ state: 'skipped' });
    await scheduler.stop();
  });

  it('#47 a replica that restarts takes over the run its earlier life left unposted, and reports one left while posting', async () => {
    folder = embeddedStoreFolder('scheduler-');
    const first = await openStore({ dataDir: folder, env: {}, logger: recordingLogger() });
    const now = new Date('2026-11-27T23:00:00Z');
    const unposted = await first.schedules.create({ ...base, question: 'unposted', nextRunAt: now });
    const posting = await first.schedules.create({ ...base, question: 'posting', nextRunAt: now });
    expect(await first.schedules.claim(unposted.id, now, undefined)).toBe(true);
    expect(await first.schedules.claim(posting.id, now, undefined)).toBe(true);
    expect(await first.schedules.posting(posting.id, now)).toBe(true);
    await first.close();
    store = await openStore({ dataDir: folder, env: {}, logger: recordingLogger() });
    const ran: string[] = [];
    const told: string[] = [];
    const scheduler = new Scheduler({
      schedules: store.schedules,
      logger: recordingLogger(),
      now: () => now,
      run: async (occurrence) => {
        ran.push(occurrence.schedule.question);
        expect(occurrence.takenOver).toBe(true);
        return (await occurrence.beginPosting()) ? { state: 'posted' } : { state: 'skipped' };
      },
      interrupted: async (schedule) => {
        told.push(schedule.question);
      },
    });
    expect(await scheduler.tick()).toMatchObject({ takenOver: 1, interrupted: 1 });
    await scheduler.settled();
    expect(ran).toEqual(['unposted']);
    expect(told).toEqual(['posting']);
    expect(await store.schedules.get(posting.id)).toMatchObject({ lastStatus: 'failed' });
    expect(await store.schedules.get(unposted.id)).toMatchObject({ lastStatus: 'posted' });
    await scheduler.stop();
  });

  it('#47 a replica that stops mid-run leaves the run for a takeover instead of recording it failed', async () => {
    const schedules = (await open()).schedules;
    const now = new Date('2026-11-27T23:00:00Z');
    const made = await schedules.create({ ...base, nextRunAt: now });
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const scheduler = new Scheduler({
      schedules,
      logger: recordingLogger(),
      now: () => now,
      run: (occurrence) =>
        new Promise((_, reject) => {
          started();
          occurrence.signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
        }),
    });
    await scheduler.tick();
    await running;
    await scheduler.stop(0);
    expect(await schedules.runsOf(made.id)).toEqual([{ dueAt: now, state: 'running' }]);
    expect((await schedules.get(made.id))?.lastStatus).toBeUndefined();
  });
});
