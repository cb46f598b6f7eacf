import type { Coordination } from '@ai-assistant/store';
import { recordingLogger } from '@ai-assistant/test-kit';
import { describe, expect, it } from 'vitest';
import { StoreHealth, threadOrder } from './replicas.js';

/** A database whose reachability the test decides, counting the checks it answers. */
function database(reachable: () => boolean) {
  let checks = 0;
  const coordination = {
    engine: 'postgres',
    async check() {
      checks++;
      if (!reachable()) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
    },
  } as unknown as Coordination;
  return { coordination, checks: () => checks };
}

describe('StoreHealth', () => {
  it('a flood of /healthz requests costs one check, not one per request', async () => {
    const db = database(() => true);
    const health = new StoreHealth(db.coordination, recordingLogger());
    const reports = await Promise.all(Array.from({ length: 50 }, () => health.report()));
    expect(db.checks()).toBe(1);
    expect(reports.every((report) => report?.reachable)).toBe(true);
  });

  it('an unreachable store stops events until a check succeeds, logged once each way', async () => {
    let up = false;
    const db = database(() => up);
    const logger = recordingLogger();
    const health = new StoreHealth(db.coordination, logger);
    expect(await health.check()).toEqual({ engine: 'postgres', reachable: false });
    expect(await health.check()).toEqual({ engine: 'postgres', reachable: false });
    expect(health.ok).toBe(false);
    up = true;
    expect(await health.check()).toEqual({ engine: 'postgres', reachable: true });
    expect(health.ok).toBe(true);
    const said = logger.lines.map((line) => line.message);
    expect(said.filter((msg) => msg.startsWith('store unreachable'))).toHaveLength(1);
    expect(said.filter((msg) => msg.startsWith('store reachable again'))).toHaveLength(1);
  });
});

describe('threadOrder', () => {
  it('#44 a message ts becomes the thread’s order for the store: later messages larger, malformed ones none', () => {
    expect(threadOrder('1700000000.000100')).toBe(1_700_000_000_000_100);
    // Compared as numbers, not text: 9.9 s comes before 10.000001 s.
    const earlier = threadOrder('9.900000') as number;
    expect(earlier).toBeLessThan(threadOrder('10.000001') as number);
    expect(threadOrder('100.0002')).toBeGreaterThan(threadOrder('100.000100') as number);
    for (const malformed of ["1'; drop table event_claims; --", '', '1e5', '-1.000100', '99999999999.000000'])
      expect(threadOrder(malformed), malformed).toBeUndefined();
  });
});
