import { expect, it } from 'vitest';
import type { NewSchedule } from '../src/index.js';
import { onBothEngines } from './engines.js';

const at = (iso: string) => new Date(iso);
const schedule = (overrides: Partial<NewSchedule> = {}): NewSchedule => ({
  workspace: 'T1',
  owner: 'U_ALICE',
  channel: 'C_GENERAL',
  question: '東京の天気を教えて',
  cron: '0 8 * * *',
  timeZone: 'Asia/Tokyo',
  description: '毎朝8時',
  approvedTools: ['weather__get_forecast'],
  nextRunAt: at('2026-11-27T23:00:00Z'),
  ...overrides,
});

onBothEngines('schedules', ({ engine, fresh, open }) => {
  it('an occurrence is claimed once: the second claim, a paused or a deleted schedule claims nothing', async () => {
    const options = fresh();
    const first = await open(options);
    // Two replicas on PostgreSQL; PGlite is one process, so there the same store claims twice.
    const second = engine === 'postgres' ? await open(options) : first;
    const made = await first.schedules.create(schedule());
    expect(made).toMatchObject({
      state: 'active',
      approvedTools: ['weather__get_forecast'],
      owner: 'U_ALICE',
    });
    expect(await first.schedules.due(at('2026-11-27T22:59:59Z'), 10)).toHaveLength(0);
    const due = await second.schedules.due(at('2026-11-27T23:00:00Z'), 10);
    expect(due.map((row) => row.id)).toEqual([made.id]);
    const dueAt = made.nextRunAt as Date;
    const next = at('2026-11-28T23:00:00Z');
    const claims = await Promise.all([
      first.schedules.claim(made.id, dueAt, next),
      second.schedules.claim(made.id, dueAt, next),
    ]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect((await first.schedules.get(made.id))?.nextRunAt).toEqual(next);

    await first.schedules.setState(made.id, 'paused');
    expect(await first.schedules.claim(made.id, next, at('2026-11-29T23:00:00Z'))).toBe(false);
    expect(await first.schedules.due(at('2026-12-30T00:00:00Z'), 10)).toHaveLength(0);
    await first.schedules.setState(made.id, 'active', { nextRunAt: next });
    expect(await first.schedules.delete(made.id)).toBe(true);
    expect(await first.schedules.claim(made.id, next, at('2026-11-29T23:00:00Z'))).toBe(false);
    expect(await first.schedules.get(made.id)).toBeUndefined();
  });

  it('a state change may be guarded: from given states only, and a stop with a given reason stays', async () => {
    const store = await open(fresh());
    const made = await store.schedules.create(schedule());
    const guard = { keepStopsWith: 'stopped by admin ' };
    expect(await store.schedules.setState(made.id, 'paused', guard)).toBe(true);
    // Run now is for an active schedule only.
    expect(
      await store.schedules.setState(made.id, 'active', {
        nextRunAt: at('2026-11-28T00:00:00Z'),
        from: ['active'],
      }),
    ).toBe(false);
    expect((await store.schedules.get(made.id))?.state).toBe('paused');
    await store.schedules.setState(made.id, 'stopped', { reason: 'stopped by admin U_ADMIN' });
    for (const state of ['active', 'paused'] as const)
      expect(
        await store.schedules.setState(made.id, state, { ...guard, nextRunAt: at('2026-11-28T00:00:00Z') }),
      ).toBe(false);
    expect(await store.schedules.get(made.id)).toMatchObject({
      state: 'stopped',
      stoppedReason: 'stopped by admin U_ADMIN',
    });
    // A stop for another reason (the owner lost the channel) may be resumed.
    await store.schedules.setState(made.id, 'stopped', { reason: 'U_ALICE is not in C_GENERAL' });
    expect(
      await store.schedules.setState(made.id, 'active', { ...guard, nextRunAt: at('2026-11-28T00:00:00Z') }),
    ).toBe(true);
  });

  it('a run records posting before its post: only its own replica may; finish sets the last result', async () => {
    const store = await open(fresh());
    const made = await store.schedules.create(schedule());
    const dueAt = made.nextRunAt as Date;
    expect(await store.schedules.posting(made.id, dueAt)).toBe(false);
    expect(await store.schedules.claim(made.id, dueAt, undefined)).toBe(true);
    expect(await store.schedules.posting(made.id, dueAt)).toBe(true);
    expect(await store.schedules.posting(made.id, dueAt)).toBe(false);
    await store.schedules.finish(made.id, dueAt, {
      state: 'posted',
      messageTs: '1.000100',
      detail: 'posted',
    });
    expect(await store.schedules.get(made.id)).toMatchObject({
      lastStatus: 'posted',
      lastRunAt: dueAt,
      lastDetail: 'posted',
    });
    expect(await store.schedules.runsOf(made.id)).toEqual([
      { dueAt, state: 'posted', messageTs: '1.000100', detail: 'posted' },
    ]);
    expect(await store.schedules.orphans()).toEqual([]);
  });

  it('the runs of a replica that stopped are orphans another takes over once', async () => {
    const options = fresh();
    const dying = await open(options);
    await dying.coordination.start();
    const made = await dying.schedules.create(schedule());
    const other = await dying.schedules.create(schedule({ question: 'posting one' }));
    expect(await dying.schedules.claim(made.id, made.nextRunAt as Date, undefined)).toBe(true);
    expect(await dying.schedules.claim(other.id, other.nextRunAt as Date, undefined)).toBe(true);
    expect(await dying.schedules.posting(other.id, other.nextRunAt as Date)).toBe(true);
    await dying.close();
    const survivor = await open(options);
    await survivor.coordination.start();
    if (engine === 'postgres') {
      // A live replica's runs are nobody's orphans (PGlite has one process: no other replica lives).
      const live = await open(options);
      await live.coordination.start();
      const liveSchedule = await live.schedules.create(schedule({ question: 'live one' }));
      expect(await live.schedules.claim(liveSchedule.id, liveSchedule.nextRunAt as Date, undefined)).toBe(
        true,
      );
    }
    const orphans = await survivor.schedules.orphans();
    expect(orphans.map((orphan) => [orphan.scheduleId, orphan.state]).sort()).toEqual(
      [
        [made.id, 'running'],
        [other.id, 'posting'],
      ].sort(),
    );
    const running = orphans.find((orphan) => orphan.state === 'running');
    if (!running) throw new Error('no running orphan');
    expect(await survivor.schedules.takeOver(running)).toBe(true);
    expect(await survivor.schedules.takeOver(running)).toBe(false);
    expect(await survivor.schedules.posting(made.id, made.nextRunAt as Date)).toBe(true);
    expect((await survivor.schedules.orphans()).map((orphan) => orphan.scheduleId)).toEqual([other.id]);
  });

  it('missed occurrences move on without a run; a workspace deleted takes its schedules', async () => {
    const store = await open(fresh());
    const made = await store.schedules.create(schedule());
    const next = at('2026-12-02T23:00:00Z');
    expect(await store.schedules.skipMissed(made.id, made.nextRunAt as Date, next, 'missed 11/28')).toBe(
      true,
    );
    expect(await store.schedules.get(made.id)).toMatchObject({ nextRunAt: next, lastStatus: 'missed' });
    expect(await store.schedules.runsOf(made.id)).toEqual([]);
    await store.schedules.create(schedule({ owner: 'U_BOB' }));
    expect(await store.schedules.countOf('T1', 'U_ALICE')).toBe(1);
    expect((await store.schedules.ofWorkspace('T1')).length).toBe(2);
    await store.workspaces.delete('T1');
    expect(await store.schedules.ofWorkspace('T1')).toEqual([]);
  });
});
