import { rmSync } from 'node:fs';
import { ChatService } from '@ai-assistant/host-core';
import { openStore, type Store } from '@ai-assistant/store';
import { embeddedStoreFolder, ScriptedProvider } from '@ai-assistant/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageGate } from '../src/usage.js';

const person = { workspace: 'T1', user: 'U1' };

let dataDir: string;
let store: Store;
beforeAll(async () => {
  dataDir = embeddedStoreFolder('attachments-');
  store = await openStore({ dataDir, env: {} });
}, 60_000);
afterAll(async () => {
  await store?.close();
  rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
});

describe('what a person attached is read after the turn is admitted', () => {
  it('#43.11 a turn past the rate never reads its attachments; an admitted one gives their text to the model', async () => {
    const provider = new ScriptedProvider([{ text: 'answer' }]);
    const chat = new ChatService({
      provider,
      usage: new UsageGate({ store: store.usage, limits: { questionsPerPersonMinute: 1 } }),
    });
    const reads: string[] = [];
    const attached = (name: string) => async () => {
      reads.push(name);
      return { text: `<attachment name="${name}">text of ${name}</attachment>` };
    };
    const first = await chat.respond({
      history: [],
      userMessage: 'read this',
      person,
      attached: attached('a.pdf'),
    });
    expect(first.text).toBe('answer');
    expect(JSON.stringify(provider.calls[0])).toContain('text of a.pdf');
    const second = await chat.respond({
      history: [],
      userMessage: 'and this',
      person,
      attached: attached('b.pdf'),
    });
    expect(second.text).toMatch(/faster than this workspace allows/);
    expect(reads).toEqual(['a.pdf']);
  });
});
