import { expect, it } from 'vitest';
import type { Store } from '../src/index.js';
import { storeDatabase } from '../src/testing.js';
import { onBothEngines } from './engines.js';

const inFiveMinutes = () => new Date(Date.now() + 5 * 60_000);
const request = (id: string, person = 'U_ALICE', workspace = 'T1') => ({
  id,
  workspace,
  person,
  detail: JSON.stringify({ channel: 'C1', ts: '1.000100' }),
  expiresAt: inFiveMinutes(),
});

onBothEngines('pending approvals', ({ engine, fresh, open }) => {
  it('the first decision of the person wins; someone else’s, or a second one, is not recorded', async () => {
    const store = await open(fresh());
    await store.approvals.open(request('A1'));
    await store.approvals.open(request('A2'));
    await store.approvals.open(request('A3', 'U_BOB'));
    expect(await store.approvals.countWaiting('T1', 'U_ALICE')).toBe(2);
    expect(await store.approvals.countWaiting('T2', 'U_ALICE')).toBe(0);
    expect(await store.approvals.get('A1')).toMatchObject({
      workspace: 'T1',
      person: 'U_ALICE',
      replicaKey: store.coordination.replicaKey,
    });
    expect(await store.approvals.decide('A1', { outcome: 'approved', by: 'U_MALLORY' })).toBe(false);
    expect(await store.approvals.decide('A1', { outcome: 'denied', by: 'U_ALICE', reason: 'no' })).toBe(true);
    expect(await store.approvals.decide('A1', { outcome: 'approved', by: 'U_ALICE' })).toBe(false);
    expect(await store.approvals.decide('A1', { outcome: 'expired' })).toBe(false);
    expect((await store.approvals.get('A1'))?.decision).toMatchObject({
      outcome: 'denied',
      by: 'U_ALICE',
      reason: 'no',
    });
    expect(await store.approvals.countWaiting('T1', 'U_ALICE')).toBe(1);
    expect(await store.approvals.get('A_NONE')).toBeUndefined();
    expect(await store.approvals.decide('A_NONE', { outcome: 'expired' })).toBe(false);
  });

  it('wait: woken by a decision in this process, or by one another replica wrote; an abort rejects', async () => {
    const store = await open(fresh());
    await store.approvals.open(request('W1'));
    const waiting = store.approvals.wait('W1', { pollMs: 60_000 });
    await new Promise((done) => setTimeout(done, 100));
    expect(await store.approvals.decide('W1', { outcome: 'approved', by: 'U_ALICE' })).toBe(true);
    // Woken without polling again (the poll interval is a minute).
    expect(await waiting).toMatchObject({ outcome: 'approved', by: 'U_ALICE' });

    await store.approvals.open(request('W2'));
    const elsewhere = store.approvals.wait('W2', { pollMs: 100 });
    // Another replica's decision reaches this one through the row only.
    await storeDatabase(store)
      .updateTable('pending_approvals')
      .set({ decision: 'denied', decided_by: 'U_ALICE', decided_at: new Date() })
      .where('id', '=', 'W2')
      .execute();
    expect(await elsewhere).toMatchObject({ outcome: 'denied', by: 'U_ALICE' });

    await store.approvals.open(request('W3'));
    const controller = new AbortController();
    const aborted = store.approvals.wait('W3', { signal: controller.signal, pollMs: 100 });
    controller.abort(new Error('timed out'));
    await expect(aborted).rejects.toThrow('timed out');
    expect(await store.approvals.decide('W3', { outcome: 'expired' })).toBe(true);
    // Decided before the wait began: it returns at once.
    expect(await store.approvals.wait('W3')).toMatchObject({ outcome: 'expired', by: null });
  });

  it('deleting the workspace deletes its requests; old expired ones are pruned', async () => {
    const store = await open(fresh());
    await store.approvals.open(request('D1', 'U_ALICE', 'T_GONE'));
    await store.approvals.open(request('D2', 'U_ALICE', 'T_KEPT'));
    await store.approvals.open({
      ...request('D3', 'U_ALICE', 'T_KEPT'),
      expiresAt: new Date(Date.now() - 7_200_000),
    });
    await store.workspaces.delete('T_GONE');
    expect(await store.approvals.get('D1')).toBeUndefined();
    await store.coordination.prune();
    expect(await store.approvals.get('D2')).toBeDefined();
    expect(await store.approvals.get('D3')).toBeUndefined();
    // A request gone while waited for counts as expired.
    expect(await store.approvals.wait('D1')).toMatchObject({ outcome: 'expired' });
  });

  if (engine === 'postgres') {
    it('at start, requests of a replica that is gone expire; a live replica’s stay', async () => {
      const options = fresh();
      const [gone, live, starting] = [await open(options), await open(options), await open(options)] as [
        Store,
        Store,
        Store,
      ];
      for (const store of [gone, live, starting]) await store.coordination.start();
      await gone.approvals.open(request('O_GONE'));
      await live.approvals.open(request('O_LIVE'));
      await starting.approvals.open(request('O_MINE'));
      await gone.approvals.open(request('O_DECIDED'));
      await gone.approvals.decide('O_DECIDED', { outcome: 'approved', by: 'U_ALICE' });
      await gone.close();
      const expired = await starting.approvals.expireOrphans();
      expect(expired.map((entry) => entry.id)).toEqual(['O_GONE']);
      expect(expired[0]?.detail).toContain('"channel":"C1"');
      expect(expired[0]?.decision?.outcome).toBe('expired');
      expect((await live.approvals.get('O_LIVE'))?.decision).toBeUndefined();
      expect((await starting.approvals.get('O_MINE'))?.decision).toBeUndefined();
      expect(await starting.approvals.expireOrphans()).toEqual([]);
    });
  } else {
    it('at start, the requests of the previous process expire', async () => {
      const options = fresh();
      const before = await open(options);
      await before.coordination.start();
      await before.approvals.open(request('O_BEFORE'));
      await before.close();
      const after = await open(options);
      await after.coordination.start();
      await after.approvals.open(request('O_MINE'));
      expect((await after.approvals.expireOrphans()).map((entry) => entry.id)).toEqual(['O_BEFORE']);
      expect((await after.approvals.get('O_MINE'))?.decision).toBeUndefined();
    });
  }
});
