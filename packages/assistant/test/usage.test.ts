import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { CancelledError, type ChatEvent, ChatService } from '@ai-assistant/host-core';
import { openStore, type Store } from '@ai-assistant/store';
import { embeddedStoreFolder, ScriptedProvider } from '@ai-assistant/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UsageGate } from '../src/usage.js';
import { everythingEntry, fixtures, managerPool, nodeServer } from './helpers.js';

// Usage is counted in the embedded store (PGlite), as the apps count it; each test its own workspace.
let dataDir: string;
let store: Store;
beforeAll(async () => {
  dataDir = embeddedStoreFolder('usage-');
  store = await openStore({ dataDir, env: {} });
}, 60_000);
afterAll(async () => {
  await store?.close();
  rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
});

function clock(iso = '2026-11-23T21:30:00Z') {
  let now = Date.parse(iso);
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}

describe('usage and budgets', () => {
  it('a spent daily budget stops the next question with its message and when it resets; the model is not called', async () => {
    const time = clock();
    const provider = new ScriptedProvider([{ text: 'answer', usage: { inputTokens: 80, outputTokens: 40 } }]);
    const person = { workspace: 'T-daily', user: 'U1' };
    const usage = new UsageGate({
      store: store.usage,
      limits: { tokensPerPersonDay: 100 },
      now: time.now,
    });
    const chat = new ChatService({ provider, usage });
    expect((await chat.respond({ history: [], userMessage: 'first', person })).text).toBe('answer');
    const second = await chat.respond({ history: [], userMessage: 'second', person });
    expect(second.text).toBe(
      "You have used today's budget of 100 model tokens; it resets at 00:00 UTC (in 2 h 30 min).",
    );
    expect(provider.calls).toHaveLength(1);
    // Someone else in the workspace still has their own budget; tomorrow the person has theirs again.
    expect(
      (await chat.respond({ history: [], userMessage: 'x', person: { ...person, user: 'U2' } })).text,
    ).toBe('answer');
    time.advance(3 * 60 * 60_000);
    expect((await chat.respond({ history: [], userMessage: 'next day', person })).text).toBe('answer');
  });

  it('a workspace budget stops everyone in it; the per-person rate stops a fast asker for the rest of the minute', async () => {
    const time = clock();
    let person = { workspace: 'T-workspace', user: 'U1' };
    const provider = new ScriptedProvider([{ text: 'answer', usage: { inputTokens: 60, outputTokens: 0 } }]);
    const chat = new ChatService({
      provider,
      usage: new UsageGate({ store: store.usage, limits: { tokensPerWorkspaceDay: 100 }, now: time.now }),
    });
    await chat.respond({ history: [], userMessage: 'a', person });
    await chat.respond({ history: [], userMessage: 'b', person: { ...person, user: 'U2' } });
    expect(
      (await chat.respond({ history: [], userMessage: 'c', person: { ...person, user: 'U3' } })).text,
    ).toMatch(/^This workspace has used today's budget of 100 model tokens/);

    person = { workspace: 'T-rate', user: 'U1' };
    const rated = new ChatService({
      provider,
      usage: new UsageGate({
        store: store.usage,
        limits: { questionsPerPersonMinute: 2 },
        now: time.now,
      }),
    });
    await rated.respond({ history: [], userMessage: '1', person });
    time.advance(20_000);
    await rated.respond({ history: [], userMessage: '2', person });
    const calls = provider.calls.length;
    expect((await rated.respond({ history: [], userMessage: '3', person })).text).toBe(
      'You are asking faster than this workspace allows (2 questions a minute). Try again in 40 s.',
    );
    expect(provider.calls.length).toBe(calls);
    time.advance(41_000);
    expect((await rated.respond({ history: [], userMessage: '4', person })).text).toBe('answer');
  });

  it('counts each turn: question, tokens, tool calls', async () => {
    const time = clock();
    const person = { workspace: 'T-count', user: 'U1' };
    const provider = new ScriptedProvider([{ text: 'ok', usage: { inputTokens: 7, outputTokens: 3 } }]);
    const chat = new ChatService({
      provider,
      usage: new UsageGate({ store: store.usage, limits: {}, now: time.now }),
    });
    await chat.respond({ history: [], userMessage: 'q', person });
    expect(await store.usage.totals('T-count', '2026-11-23', '2026-11-23', 'U1')).toEqual({
      questions: 1,
      inputTokens: 7,
      outputTokens: 3,
      toolCalls: 0,
    });
  });
});

// Budgets through the real store (PGlite): turns asked at once, a server's completions, a cancelled turn.
describe('#43.12 budgets that hold', () => {
  const pool = managerPool();
  afterEach(() => pool.closeAll());
  const today = () => new Date().toISOString().slice(0, 10);
  const spent = async (user: string) => {
    const totals = await store.usage.totals('T1', today(), today(), user);
    return { tokens: totals.inputTokens + totals.outputTokens, toolCalls: totals.toolCalls };
  };

  it('#43.12 eight questions at once against 100 tokens a day: one is answered, seven are told why', async () => {
    const asker = { workspace: 'T1', user: 'U_EIGHT' };
    // The model answers only once every question was either sent to it or answered without it.
    let release: () => void = () => {};
    const answering = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reached = 0;
    let refused = 0;
    const decided = () => reached + refused === 8 && release();
    const provider = new ScriptedProvider([
      async () => {
        reached += 1;
        decided();
        await answering;
        return { text: 'answer', usage: { inputTokens: 300, outputTokens: 100 } };
      },
    ]);
    const chat = new ChatService({
      provider,
      usage: new UsageGate({ store: store.usage, limits: { tokensPerPersonDay: 100 } }),
    });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        chat.respond({ history: [], userMessage: `question ${index}`, person: asker }).then((result) => {
          if (result.text !== 'answer') refused += 1;
          decided();
          return result.text;
        }),
      ),
    );
    expect(results.filter((text) => text === 'answer')).toHaveLength(1);
    expect(
      results.filter((text) => /still being answered may use the rest of today's budget of 100/.test(text)),
    ).toHaveLength(7);
    expect(await spent('U_EIGHT')).toEqual({ tokens: 400, toolCalls: 0 });
    // Settled: nothing is held any more, and the spent budget says so.
    expect(await chat.respond({ history: [], userMessage: 'again', person: asker })).toMatchObject({
      text: expect.stringMatching(/^You have used today's budget of 100 model tokens/),
    });
  }, 30_000);

  it('#43.12 a server’s completions (sampling) count against the person who approved them', async () => {
    const asker = { workspace: 'T1', user: 'U_SAMPLER' };
    const manager = await pool.connect([
      nodeServer('everything', everythingEntry, ['stdio'], { timeoutMs: 30_000, approval: 'auto' }),
    ]);
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          {
            id: 'call_1',
            name: 'mcp__everything__trigger-sampling-request',
            arguments: { prompt: 'summarise', maxTokens: 500 },
          },
        ],
        usage: { inputTokens: 50, outputTokens: 10 },
      },
      (call) =>
        call.method === 'complete'
          ? { text: 'a long completion', usage: { inputTokens: 4000, outputTokens: 200 } }
          : { text: 'done', usage: { inputTokens: 50, outputTokens: 10 } },
    ]);
    const chat = new ChatService({
      provider,
      tools: manager,
      usage: new UsageGate({ store: store.usage, limits: {} }),
    });
    const result = await chat.respond({
      history: [],
      userMessage: 'summarise it',
      person: asker,
      approve: async () => ({ outcome: 'approved' }),
    });
    expect(result.text).toBe('done');
    expect(provider.calls.filter((call) => call.method === 'complete')).toHaveLength(1);
    expect(await spent('U_SAMPLER')).toEqual({ tokens: 50 + 10 + 4000 + 200 + 50 + 10, toolCalls: 1 });
  }, 30_000);

  it('#43.12 a cancelled turn’s tool calls count: the next question is past a budget of 2', async () => {
    const asker = { workspace: 'T1', user: 'U_CANCEL' };
    const manager = await pool.connect([nodeServer('echo', join(fixtures, 'echo-server.mjs'))]);
    const calls = Array.from({ length: 4 }, (_, index) => ({
      id: `never_${index}`,
      name: 'mcp__echo__never',
      arguments: {},
    }));
    const provider = new ScriptedProvider([{ toolCalls: calls, usage: { inputTokens: 5, outputTokens: 5 } }]);
    const chat = new ChatService({
      provider,
      tools: manager,
      usage: new UsageGate({ store: store.usage, limits: { toolCallsPerPersonDay: 2 } }),
    });
    const cancel = new AbortController();
    let started = 0;
    const turn = chat.respond({
      history: [],
      userMessage: 'look everywhere',
      person: asker,
      signal: cancel.signal,
      onEvent: (event: ChatEvent) => {
        if (event.type === 'tool_start' && ++started === 4) cancel.abort();
      },
    });
    await expect(turn).rejects.toBeInstanceOf(CancelledError);
    expect(await spent('U_CANCEL')).toEqual({ tokens: 10, toolCalls: 4 });
    const next = await chat.respond({ history: [], userMessage: 'once more', person: asker });
    expect(next.text).toMatch(/^You have used today's budget of 2 tool calls/);
    expect(provider.calls).toHaveLength(1);
  }, 30_000);
});
