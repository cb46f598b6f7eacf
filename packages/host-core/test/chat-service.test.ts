import { join } from 'node:path';
import { type FakeJma, startFakeJma } from '@ai-assistant/mcp-server-weather/testing';
import { ScriptedProvider, toolMessage } from '@ai-assistant/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ChatEvent, ChatService } from '../src/chat/chat-service.js';
import type { ServerConfig } from '../src/config/mcp-config.js';
import { CancelledError } from '../src/errors.js';
import { fixtures, managerPool, nodeServer, weatherServer } from './helpers.js';

const echo = join(fixtures, 'echo-server.mjs');
const pool = managerPool();
const connect = (...servers: ServerConfig[]) => pool.connect(servers);
afterEach(pool.closeAll);

describe('chat loop with the real weather server', () => {
  let jma: FakeJma;
  beforeAll(async () => {
    jma = await startFakeJma();
  });
  afterAll(() => jma?.close());
  const weather = () =>
    weatherServer(jma.baseUrl, {
      systemInstruction: 'Use the weather tool for Japanese weather.',
      responseInstruction: 'Cite 気象庁.',
    });

  it('ac12 a weather question: the tool is called with the place, its result reaches the model, the answer returns', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'call_1', name: 'mcp__weather__get_weather', arguments: { location: '東京' } }] },
      (call) => ({
        text: `東京は晴れ時々くもりです。${toolMessage(call, 'call_1')?.content.includes('最高気温 13°C') ? '最高13°C。' : ''}`,
      }),
    ]);
    const chat = new ChatService({ provider, tools: await connect(weather()) });
    const result = await chat.respond({ history: [], userMessage: '東京の天気を教えて' });
    expect(result.text).toBe('東京は晴れ時々くもりです。最高13°C。');
    expect(result.trace).toEqual([
      expect.objectContaining({
        name: 'mcp__weather__get_weather',
        server: 'weather',
        tool: 'get_weather',
        arguments: { location: '東京' },
        ok: true,
      }),
    ]);
    expect(provider.calls[0]?.tools.map((tool) => tool.name)).toEqual(['mcp__weather__get_weather']);
    const answer = toolMessage(provider.calls[1]!, 'call_1');
    expect(answer?.content).toContain('東京都 東京地方の天気予報です（気象庁 2026-03-12 05:00 発表）');
    expect(answer?.isError).toBe(false);
    // Only the user's message and the final answer are history.
    expect(result.history).toEqual([
      { role: 'user', content: '東京の天気を教えて' },
      { role: 'assistant', content: result.text },
    ]);
  });

  it('response_instruction appears once per turn even after three rounds; system_instruction is always there', async () => {
    const ask = (id: string) => ({
      toolCalls: [{ id, name: 'mcp__weather__get_weather', arguments: { location: '大阪' } }],
    });
    const provider = new ScriptedProvider([ask('a'), ask('b'), ask('c'), { text: 'done' }]);
    const chat = new ChatService({ provider, tools: await connect(weather()) });
    await chat.respond({ history: [], userMessage: '大阪は？' });
    const last = provider.calls.at(-1)!;
    const instructed = last.messages.filter((message) => message.content.includes('Cite 気象庁.'));
    expect(instructed.map((message) => message.toolCallId)).toEqual(['a']);
    for (const call of provider.calls) {
      expect(call.messages[0]?.role).toBe('system');
      expect(call.messages[0]?.content).toContain('Use the weather tool for Japanese weather.');
    }
  });
});

describe('chat loop', () => {
  it('images a person attached go with the question to a model that reads images, and are named to one that does not', async () => {
    const image = { mimeType: 'image/png', data: 'iVBORw0KGgo=' };
    const seeing = Object.assign(new ScriptedProvider([{ text: '赤い点です' }]), { supportsImages: true });
    await new ChatService({ provider: seeing }).respond({
      history: [],
      userMessage: 'これは？',
      userImages: [image],
    });
    expect(seeing.calls[0]?.messages.at(-1)).toEqual({ role: 'user', content: 'これは？', images: [image] });

    const blind = new ScriptedProvider([{ text: '見えません' }]);
    const result = await new ChatService({ provider: blind }).respond({
      history: [],
      userMessage: 'これは？',
      userImages: [image],
    });
    const sent = blind.calls[0]?.messages.at(-1);
    expect(sent?.images).toBeUndefined();
    expect(sent?.content).toBe(
      'これは？\n\n[1 image(s) attached, which this model cannot see. If the question needs them, say so.]',
    );
    // The history keeps the words only, never the image.
    expect(result.history.at(-2)).toEqual({ role: 'user', content: 'これは？' });
  });

  it('ac13 a question that needs no tool: one model call, the answer unchanged', async () => {
    const provider = new ScriptedProvider([{ text: 'こんにちは！何かお手伝いできますか？' }]);
    const chat = new ChatService({ provider, tools: await connect(nodeServer('echo', echo)) });
    const result = await chat.respond({
      history: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ],
      userMessage: 'こんにちは',
    });
    expect(result.text).toBe('こんにちは！何かお手伝いできますか？');
    expect(provider.calls).toHaveLength(1);
    expect(provider.calls[0]?.messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
    ]);
    expect(result.trace).toEqual([]);
  });

  it('ac14 a tool that throws or returns isError: the model reads the error and the answer still comes back', async () => {
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          { id: 't1', name: 'mcp__echo__throws', arguments: {} },
          { id: 't2', name: 'mcp__echo__fail', arguments: {} },
          { id: 't3', name: 'mcp__echo__nope', arguments: {} },
          { id: 't4', name: 'mcp__echo__echo', arguments: {} },
          {
            id: 't5',
            name: 'mcp__echo__echo',
            arguments: {},
            argumentsError: 'arguments were not valid JSON: {"message":',
          },
        ],
      },
      { text: 'Sorry, the tools failed.' },
    ]);
    const chat = new ChatService({ provider, tools: await connect(nodeServer('echo', echo)) });
    const result = await chat.respond({ history: [], userMessage: 'try' });
    expect(result.text).toBe('Sorry, the tools failed.');
    const seen = provider.calls[1]!;
    const errors = ['t1', 't2', 't3', 't4', 't5'].map((id) => toolMessage(seen, id));
    expect(errors.every((message) => message?.isError === true)).toBe(true);
    expect(errors[0]?.content).toContain('unexpected token in settings');
    expect(errors[1]?.content).toContain('the database is locked');
    expect(errors[2]?.content).toContain('there is no tool named "mcp__echo__nope"');
    expect(errors[3]?.content).toContain('missing required argument(s): message');
    expect(errors[4]?.content).toContain('not valid JSON');
    expect(result.trace.map((entry) => entry.ok)).toEqual([false, false, false, false, false]);
  });

  it('ac15 MCP disabled: exactly one plain model call and no tools', async () => {
    const provider = new ScriptedProvider([{ text: 'plain answer' }]);
    const chat = new ChatService({ provider });
    const result = await chat.respond({ history: [], userMessage: '東京の天気は？' });
    expect(result.text).toBe('plain answer');
    expect(provider.calls.map((call) => [call.method, call.tools.length])).toEqual([['complete', 0]]);
  });

  it('ac18 a model that asks for tools forever: exactly 10 rounds, then the limit message and a call with tool choice "none"', async () => {
    const provider = new ScriptedProvider([
      (call) =>
        call.options?.toolChoice === 'none'
          ? { text: 'Here is what I found so far.' }
          : {
              toolCalls: [
                { id: `r${call.messages.length}`, name: 'mcp__echo__echo', arguments: { message: 'again' } },
              ],
            },
    ]);
    const chat = new ChatService({ provider, tools: await connect(nodeServer('echo', echo)) });
    const result = await chat.respond({ history: [], userMessage: 'loop' });
    expect(provider.calls.map((call) => call.method)).toEqual(Array(11).fill('completeWithTools'));
    const final = provider.calls.at(-1)!;
    expect(final.tools.map((tool) => tool.name)).toContain('mcp__echo__echo');
    expect(final.options?.toolChoice).toBe('none');
    expect(final.messages.at(-1)).toEqual({
      role: 'user',
      content: expect.stringMatching(
        /^ツール呼び出しの上限に達しました。現在の情報で回答してください。\n\(The tool-call limit/,
      ),
    });
    expect(result).toMatchObject({ text: 'Here is what I found so far.', limitReached: true, rounds: 10 });
    expect(result.trace).toHaveLength(10);
  });

  it('a tool that never answers times out and the loop goes on with a timeout error', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'n', name: 'mcp__echo__never', arguments: {} }] },
      { text: 'It timed out.' },
    ]);
    const chat = new ChatService({
      provider,
      tools: await connect(nodeServer('echo', echo)),
      toolTimeoutMs: 300,
    });
    const result = await chat.respond({ history: [], userMessage: 'wait' });
    expect(result.text).toBe('It timed out.');
    expect(toolMessage(provider.calls[1]!, 'n')).toMatchObject({
      isError: true,
      content: expect.stringContaining('timed out after 300 ms'),
    });
  });

  it('runs the calls of one round concurrently and keeps the model’s order', async () => {
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          { id: 'slow', name: 'mcp__echo__sleep', arguments: { ms: 400 } },
          { id: 'fast', name: 'mcp__echo__echo', arguments: { message: 'quick' } },
        ],
      },
      { text: 'both done' },
    ]);
    const events: ChatEvent[] = [];
    const chat = new ChatService({ provider, tools: await connect(nodeServer('echo', echo)) });
    await chat.respond({
      history: [],
      userMessage: 'go',
      streamText: true,
      onEvent: (event) => events.push(event),
    });
    const order = events
      .filter((event) => event.type !== 'text_delta')
      .map((event) => `${event.type}:${'callId' in event ? event.callId : ''}`);
    // Both start before either ends, and the fast one ends first: the slow one did not hold it up.
    expect(order).toEqual(['tool_start:slow', 'tool_start:fast', 'tool_end:fast', 'tool_end:slow']);
    const sent = provider.calls[1]!.messages.filter((message) => message.role === 'tool').map(
      (message) => message.toolCallId,
    );
    expect(sent).toEqual(['slow', 'fast']);
    expect(events.at(-1)).toEqual({ type: 'text_delta', text: 'both done' });
  });

  it('injects auto-context results (with their response_instruction) before the first model call', async () => {
    const provider = new ScriptedProvider([{ text: 'answered from context' }]);
    const tools = await connect(
      nodeServer('kb', echo, [], { autoContextTool: 'echo', responseInstruction: 'Cite your sources.' }),
      nodeServer('broken', echo, [], { autoContextTool: 'throws' }),
    );
    const chat = new ChatService({ provider, tools });
    await chat.respond({ history: [], userMessage: 'What is our deploy process?' });
    const system = provider.calls[0]?.messages[0]?.content ?? '';
    expect(system).toContain('Context from kb');
    expect(system).toContain('echo: What is our deploy process?');
    expect(system).toContain('Cite your sources.');
    expect(system).not.toContain('Context from broken');
  });

  it('cancellation mid-tool returns promptly with a CancelledError and ends the tool call', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'n', name: 'mcp__echo__never', arguments: {} }] },
    ]);
    const tools = await connect(nodeServer('echo', echo));
    const chat = new ChatService({ provider, tools });
    const controller = new AbortController();
    const events: ChatEvent[] = [];
    const answer = chat.respond({
      history: [],
      userMessage: 'never mind',
      signal: controller.signal,
      onEvent: (event) => {
        events.push(event);
        if (event.type === 'tool_start') setTimeout(() => controller.abort(), 50);
      },
    });
    await expect(answer).rejects.toBeInstanceOf(CancelledError);
    expect(events.map((event) => event.type)).toEqual(['tool_start', 'tool_end']);
    // The server was told to stop and still serves the next call.
    expect((await tools.callTool('mcp__echo__echo', { message: 'after' })).text).toBe('echo: after');
  });

  it('#44 the answer’s deadline is the loop’s own: a model that never answers is stopped at answerTimeoutMs, saying so', async () => {
    const provider = new ScriptedProvider([() => new Promise<never>(() => {})]);
    const chat = new ChatService({ provider, answerTimeoutMs: 200 });
    expect(chat.settings()).toMatchObject({ answerTimeoutMs: 200 });
    const answer = chat.respond({ history: [], userMessage: '東京の天気は？' });
    await expect(answer).rejects.toBeInstanceOf(CancelledError);
    await expect(answer).rejects.toThrow('The answer was not finished within its 0.2 s and was stopped');
  });
});
