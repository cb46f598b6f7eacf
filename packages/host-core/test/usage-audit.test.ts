import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatService } from '../src/chat/chat-service.js';
import type { ToolAuditEntry } from '../src/chat/chat-types.js';
import { McpClientManager } from '../src/mcp/client-manager.js';
import { memoryUsageStore, UsageGate } from '../src/usage.js';
import { fixtures, nodeServer } from './helpers.js';
import { ScriptedProvider } from './scripted-provider.js';

const person = { workspace: 'T1', user: 'U1' };

function clock(iso = '2026-11-23T21:30:00Z') {
  let now = Date.parse(iso);
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}

describe('usage and budgets', () => {
  it('a spent daily budget stops the next question with its message and when it resets; the model is not called', async () => {
    const time = clock();
    const provider = new ScriptedProvider([{ text: 'answer', usage: { inputTokens: 80, outputTokens: 40 } }]);
    const usage = new UsageGate({
      store: memoryUsageStore(),
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
    const store = memoryUsageStore();
    const provider = new ScriptedProvider([{ text: 'answer', usage: { inputTokens: 60, outputTokens: 0 } }]);
    const chat = new ChatService({
      provider,
      usage: new UsageGate({ store, limits: { tokensPerWorkspaceDay: 100 }, now: time.now }),
    });
    await chat.respond({ history: [], userMessage: 'a', person });
    await chat.respond({ history: [], userMessage: 'b', person: { ...person, user: 'U2' } });
    expect(
      (await chat.respond({ history: [], userMessage: 'c', person: { ...person, user: 'U3' } })).text,
    ).toMatch(/^This workspace has used today's budget of 100 model tokens/);

    const rated = new ChatService({
      provider,
      usage: new UsageGate({
        store: memoryUsageStore(),
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
    const store = memoryUsageStore();
    const time = clock();
    const provider = new ScriptedProvider([{ text: 'ok', usage: { inputTokens: 7, outputTokens: 3 } }]);
    const chat = new ChatService({ provider, usage: new UsageGate({ store, limits: {}, now: time.now }) });
    await chat.respond({ history: [], userMessage: 'q', person });
    expect(await store.totals('T1', '2026-11-23', '2026-11-23', 'U1')).toEqual({
      questions: 1,
      inputTokens: 7,
      outputTokens: 3,
      toolCalls: 0,
    });
  });
});

describe('audit', () => {
  let mcp: McpClientManager;
  beforeAll(async () => {
    mcp = new McpClientManager();
    await mcp.connect([nodeServer('echo', join(fixtures, 'echo-server.mjs'))]);
  });
  afterAll(() => mcp.close());

  it('one entry per tool call: who, the arguments redacted, the approval (or none), the outcome', async () => {
    const entries: ToolAuditEntry[] = [];
    const secret = 'sk-personal-secret-value-1234';
    const provider = new ScriptedProvider([
      (call) =>
        call.messages.some((message) => message.role === 'tool')
          ? { text: 'done' }
          : {
              toolCalls: [
                { id: 'w', name: 'mcp__echo__write_note', arguments: { text: `remember ${secret}` } },
                { id: 'r', name: 'mcp__echo__read_notes', arguments: {} },
                { id: 'd', name: 'mcp__echo__write_note', arguments: { text: 'second' } },
              ],
            },
    ]);
    const time = clock();
    const chat = new ChatService({
      provider,
      tools: mcp,
      audit: (entry) => void entries.push(entry),
      now: time.now,
    });
    await chat.respond({
      history: [],
      userMessage: 'note it',
      person,
      tokens: { token: secret },
      approve: async (request) =>
        request.arguments.text === 'second' ? { outcome: 'denied', reason: 'no' } : { outcome: 'approved' },
    });
    await new Promise((resolve) => setImmediate(resolve));
    const byTool = entries.map((entry) => [entry.tool, entry.outcome, entry.approval?.by ?? 'auto']);
    expect(byTool).toEqual(
      expect.arrayContaining([
        ['write_note', 'ok', 'U1'],
        ['read_notes', 'ok', 'auto'],
        ['write_note', 'denied', 'auto'],
      ]),
    );
    expect(entries).toHaveLength(3);
    expect(
      entries.every((entry) => entry.workspace === 'T1' && entry.person === 'U1' && entry.server === 'echo'),
    ).toBe(true);
    expect(JSON.stringify(entries)).not.toContain(secret);
    expect(entries.find((entry) => entry.approval)?.arguments).toContain('[REDACTED]');
  });
});
