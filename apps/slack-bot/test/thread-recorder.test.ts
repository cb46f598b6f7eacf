import { rmSync } from 'node:fs';
import { openStore, type Store } from '@ai-assistant/store';
import { embeddedStoreFolder, recordingLogger } from '@ai-assistant/test-kit';
import type { App } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ThreadRecorder, timeOfTs } from '../src/slack/thread-recorder.js';

const day = 86_400_000;
const started = '1767225600.000100'; // 2026-01-01T00:00:00Z

// One embedded store for the file; the tests run in order, the first one's pruning before the second.
let store: Store;
let dataDir: string;
beforeAll(async () => {
  dataDir = embeddedStoreFolder('thread-recorder-');
  store = await openStore({ dataDir, env: {} });
});
afterAll(async () => {
  await store?.close();
  rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
});

function recorder(now: () => Date) {
  return new ThreadRecorder(store.conversations, {
    client: {} as App['client'],
    bot: () => ({ userId: 'UBOT' }),
    logger: recordingLogger(),
    now,
  });
}

describe('the thread recorder', () => {
  it('retention counts from each message’s time on the injected clock', async () => {
    let now = new Date(timeOfTs(started).getTime() + 29 * day);
    const threads = recorder(() => now);
    await threads.heard({
      team: 'T1',
      channel: 'C1',
      threadTs: started,
      ts: started,
      user: 'U1',
      text: '古い',
    });
    const later = (Number(started) + 20 * 86_400).toFixed(6);
    await threads.said({
      team: 'T1',
      channel: 'C1',
      threadTs: started,
      ts: later,
      user: 'U1',
      text: '新しい',
    });
    expect(await threads.prune(30)).toBe(0);
    now = new Date(timeOfTs(started).getTime() + 31 * day);
    expect(await threads.prune(30)).toBe(1);
    expect(await threads.isMember('T1', 'C1', started)).toBe(true);
    now = new Date(timeOfTs(started).getTime() + 51 * day);
    expect(await threads.prune(30)).toBe(1);
    expect(await threads.isMember('T1', 'C1', started)).toBe(false);
  });

  it('a message in a thread the bot is not in is not kept; edits and deletions reach only recorded messages', async () => {
    const threads = recorder(() => new Date());
    expect(await threads.said({ channel: 'C1', threadTs: '1.000001', ts: '2.000001', text: 'x' })).toBe(
      false,
    );
    await threads.heard({ channel: 'C1', threadTs: '1.000001', ts: '1.000001', user: 'U1', text: 'q' });
    expect(await threads.edited({ channel: 'C1', threadTs: '1.000001', ts: '1.000001', text: 'q2' })).toBe(
      true,
    );
    expect(await threads.edited({ channel: 'C1', threadTs: '1.000001', ts: '9.000001', text: 'no' })).toBe(
      false,
    );
    expect(await threads.deleted(undefined, 'C1', '1.000001', '1.000001')).toBe(true);
    expect(await threads.deleted(undefined, 'C1', '1.000001', '1.000001')).toBe(false);
  });
});
