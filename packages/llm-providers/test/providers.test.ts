import type { Message, ToolDefinition } from '@ai-assistant/host-core';
import { type FakeVendor, startFakeVendor } from '@ai-assistant/test-kit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../src/anthropic/anthropic-provider.js';
import { OpenAICompatibleProvider, OpenAIProvider } from '../src/openai/openai-provider.js';
import { LLMProviderError } from '../src/provider-error.js';
import { fixtureJson, fixtureText } from './fixtures.js';

const weatherTool: ToolDefinition = {
  name: 'mcp__weather__get_weather',
  description: 'Japanese weather forecast',
  inputSchema: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { location: { $ref: '#/$defs/place' }, days: { type: 'array' } },
    required: ['location'],
    $defs: { place: { type: 'string', description: 'a place in Japan' } },
  },
};
const question: Message[] = [
  { role: 'system', content: 'You are helpful.' },
  { role: 'user', content: '東京の天気は？' },
];
const afterTools: Message[] = [
  ...question,
  {
    role: 'assistant',
    content: '',
    toolCalls: [{ id: 'call_1', name: 'mcp__weather__get_weather', arguments: { location: '東京' } }],
  },
  { role: 'tool', toolCallId: 'call_1', content: '晴れ、最高気温 13°C', isError: false },
];

let vendor: FakeVendor;
beforeEach(async () => {
  vendor = await startFakeVendor();
});
afterEach(() => vendor.close());

const openai = (extra = {}) =>
  new OpenAIProvider({
    model: 'gpt-4o',
    apiKey: 'sk-test-key-123456',
    baseURL: vendor.baseURL,
    maxRetries: 0,
    ...extra,
  });
const anthropic = (extra = {}) =>
  new AnthropicProvider({
    model: 'claude-test',
    apiKey: 'sk-ant-test-key-123456',
    baseURL: vendor.baseURL.replace(/\/v1$/, ''),
    maxRetries: 0,
    ...extra,
  });
const compatible = (extra = {}) =>
  new OpenAICompatibleProvider({ model: 'qwen3', baseURL: vendor.baseURL, maxRetries: 0, ...extra });

describe('adapters on vendor responses in each wire format', () => {
  it('ac8 tools are passed to the LLM in each vendor’s format, schemas compiled', async () => {
    vendor.reply({ json: fixtureJson('openai/chat-text.json') });
    await openai().completeWithTools(question, [weatherTool]);
    const [openaiTool] = vendor.requests[0]!.body.tools as Array<Record<string, unknown>>;
    expect(openaiTool).toEqual({
      type: 'function',
      function: {
        name: 'mcp__weather__get_weather',
        description: 'Japanese weather forecast',
        parameters: {
          type: 'object',
          properties: {
            location: { type: 'string', description: 'a place in Japan' },
            days: { type: 'array', items: {} },
          },
          required: ['location'],
        },
      },
    });

    vendor.reply({ json: fixtureJson('anthropic/messages-text.json') });
    await anthropic().completeWithTools(question, [weatherTool]);
    const anthropicBody = vendor.requests[1]?.body;
    expect(vendor.requests[1]?.path).toBe('/v1/messages');
    expect((anthropicBody!.tools as unknown[])[0]).toEqual({
      name: 'mcp__weather__get_weather',
      description: 'Japanese weather forecast',
      input_schema: (openaiTool!.function as { parameters: unknown }).parameters,
    });
    expect(anthropicBody?.system).toBe('You are helpful.');
  });

  it('ac9 OpenAI function calling: tool_calls parsed, tool results sent back as role "tool"', async () => {
    vendor.reply(
      { json: fixtureJson('openai/chat-tool-call.1.response.json') },
      { json: fixtureJson('openai/chat-tool-call.2.response.json') },
    );
    const provider = openai();
    const first = await provider.completeWithTools(question, [weatherTool]);
    expect(first).toMatchObject({
      stopReason: 'tool_calls',
      model: 'gpt-4.1-mini-2025-04-14',
      usage: { inputTokens: 88, outputTokens: 21 },
      toolCalls: [
        { id: 'call_Wx7tokyoForecast01', name: 'mcp__weather__get_weather', arguments: { location: '東京' } },
      ],
    });
    const second = await provider.completeWithTools(afterTools, [weatherTool]);
    expect(second.toolCalls).toEqual([]);
    expect(second.content.length).toBeGreaterThan(0);
    const sent = vendor.requests[1]?.body.messages as Array<Record<string, unknown>>;
    // Same shape as the vendor's documented second-round request.
    const recorded = (
      fixtureJson('openai/chat-tool-call.2.request.json') as {
        messages: Array<Record<string, unknown>>;
      }
    ).messages;
    expect(sent.map((message) => Object.keys(message).sort())).toEqual(
      recorded.map((message) => Object.keys(message).sort()),
    );
    expect(sent[2]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_1',
          type: 'function',
          function: { name: 'mcp__weather__get_weather', arguments: '{"location":"東京"}' },
        },
      ],
    });
    expect(sent[3]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: '晴れ、最高気温 13°C' });
  });

  it('OpenAI parallel tool calls, whole and streamed', async () => {
    vendor.reply(
      { json: fixtureJson('openai/chat-parallel-tool-calls.json') },
      { sse: fixtureText('openai/chat-parallel-tool-calls.stream.sse') },
    );
    const whole = await openai().completeWithTools(question, [weatherTool]);
    expect(whole.toolCalls.map((call) => [call.name, call.arguments])).toEqual([
      ['mcp__weather__get_weather', { location: '東京' }],
      ['mcp__weather__get_weather', { location: '大阪', date: 'tomorrow' }],
    ]);
    const deltas: string[] = [];
    const streamed = await openai().completeWithTools(question, [weatherTool], {
      onTextDelta: (text) => deltas.push(text),
    });
    expect(streamed.toolCalls.map((call) => call.name)).toEqual([
      'mcp__weather__get_weather',
      'builtin__get_current_time',
    ]);
    expect(
      streamed.toolCalls.every((call) => Object.keys(call.arguments).length > 0 && !call.argumentsError),
    ).toBe(true);
    expect(vendor.requests[1]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('OpenAI streamed text arrives as deltas and streamed tool-call fragments are assembled', async () => {
    vendor.reply(
      { sse: fixtureText('openai/chat-text.stream.sse') },
      { sse: fixtureText('openai/chat-tool-call.stream.sse') },
    );
    const deltas: string[] = [];
    const text = await openai().complete(question, { onTextDelta: (delta) => deltas.push(delta) });
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(text.content);
    const call = await openai().completeWithTools(question, [weatherTool], { onTextDelta: () => {} });
    expect(call.toolCalls).toEqual([
      {
        id: 'call_StrSapporoWeek',
        name: 'mcp__weather__get_weather',
        arguments: { location: '札幌', date: 'week' },
      },
    ]);
  });

  it('ac10 Anthropic tool use: tool_use blocks parsed, tool results merged into one user message with is_error', async () => {
    vendor.reply(
      { json: fixtureJson('anthropic/messages-tool-use.json') },
      { json: fixtureJson('anthropic/messages-text.json') },
    );
    const provider = anthropic();
    const first = await provider.completeWithTools(question, [weatherTool]);
    expect(first).toMatchObject({
      stopReason: 'tool_calls',
      toolCalls: [
        {
          id: 'toolu_01AiaFukuokaToday0001',
          name: 'mcp__weather__get_weather',
          arguments: { location: '福岡' },
        },
      ],
    });
    expect(first.content).toBe('福岡の天気予報を確認します。');
    await provider.completeWithTools(
      [
        ...afterTools.slice(0, 3),
        {
          role: 'assistant',
          content: 'Checking both.',
          toolCalls: [
            { id: 'a', name: 'x', arguments: {} },
            { id: 'b', name: 'y', arguments: { q: 1 } },
          ],
        },
        { role: 'tool', toolCallId: 'a', content: 'ok' },
        { role: 'tool', toolCallId: 'b', content: 'boom', isError: true },
        { role: 'user', content: 'The tool-call limit was reached.' },
      ],
      [weatherTool],
    );
    const messages = vendor.requests[1]?.body.messages as Array<{
      role: string;
      content: Array<Record<string, unknown>>;
    }>;
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[1]?.content).toEqual([
      { type: 'tool_use', id: 'call_1', name: 'mcp__weather__get_weather', input: { location: '東京' } },
      { type: 'text', text: 'Checking both.' },
      { type: 'tool_use', id: 'a', name: 'x', input: {} },
      { type: 'tool_use', id: 'b', name: 'y', input: { q: 1 } },
    ]);
    expect(messages[2]?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'a', content: 'ok' },
      { type: 'tool_result', tool_use_id: 'b', content: 'boom', is_error: true },
      { type: 'text', text: 'The tool-call limit was reached.' },
    ]);
    // The SDK authenticates (x-api-key or bearer, by SDK version) and pins an API version.
    const headers = vendor.requests[1]?.headers ?? {};
    expect(String(headers['x-api-key'] ?? headers.authorization)).toContain('sk-ant-test-key-123456');
    expect(headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('Anthropic streaming: text deltas reported, tool input JSON assembled, parallel calls kept in order', async () => {
    vendor.reply(
      { sse: fixtureText('anthropic/messages-tool-use.stream.sse') },
      { sse: fixtureText('anthropic/messages-parallel-tool-use.stream.sse') },
    );
    const deltas: string[] = [];
    const single = await anthropic().completeWithTools(question, [weatherTool], {
      onTextDelta: (text) => deltas.push(text),
    });
    expect(deltas.join('')).toBe(single.content);
    expect(single.content).toBe('金沢の週間予報を調べますね。');
    expect(single.toolCalls).toEqual([
      {
        id: 'toolu_01AiaKanazawaWeek001',
        name: 'mcp__weather__get_weather',
        arguments: { location: '金沢', date: 'week' },
      },
    ]);
    expect(single.stopReason).toBe('tool_calls');
    const parallel = await anthropic().completeWithTools(question, [weatherTool], { onTextDelta: () => {} });
    expect(parallel.toolCalls.map((call) => [call.name, call.arguments])).toEqual([
      ['mcp__weather__get_weather', { location: '神戸' }],
      ['builtin__calculate', { expression: '28 - 21' }],
    ]);
    expect(vendor.requests[0]?.body.stream).toBe(true);
  });

  it('Anthropic parallel tool use (four calls)', async () => {
    vendor.reply({ json: fixtureJson('anthropic/messages-parallel-tool-use.json') });
    const response = await anthropic().completeWithTools(question, [weatherTool]);
    expect(response.toolCalls.map((call) => call.arguments.location)).toEqual([
      '札幌',
      '仙台',
      '広島',
      '那覇',
    ]);
  });

  it('ac11 an LM Studio-style compatible server, with and without a tool call', async () => {
    vendor.reply(
      { json: fixtureJson('compatible/ollama-tool-call.json') },
      { json: fixtureJson('compatible/ollama-text.json') },
    );
    const provider = compatible();
    const withCall = await provider.completeWithTools(question, [weatherTool]);
    expect(withCall.toolCalls).toEqual([
      { id: 'call_k3x9qz1m', name: 'mcp__weather__get_weather', arguments: { location: '京都' } },
    ]);
    const withoutCall = await provider.completeWithTools(afterTools, [weatherTool]);
    expect(withoutCall.toolCalls).toEqual([]);
    expect(withoutCall.content).toBe('京都は晴れ。');
    expect(vendor.requests[0]?.path).toBe('/v1/chat/completions');
    expect(vendor.requests[0]?.headers.authorization).toBe('Bearer not-needed');
  });

  it('compatible quirks: empty ids, object arguments, missing arguments, think tags, bad argument JSON in a stream', async () => {
    vendor.reply(
      { json: fixtureJson('compatible/gemini-empty-tool-call-id.json') },
      { json: fixtureJson('compatible/tgi-arguments-object.json') },
      { json: fixtureJson('compatible/openrouter-missing-arguments.json') },
      { json: fixtureJson('compatible/qwen3-think-in-content.json') },
      { json: fixtureJson('compatible/deepseek-r1-think-in-content.json') },
      { sse: fixtureText('compatible/ollama-stream-tool-call.sse') },
    );
    const provider = compatible();
    const gemini = await provider.completeWithTools(question, [weatherTool]);
    expect(gemini.toolCalls).toHaveLength(1);
    expect(gemini.toolCalls[0]).toMatchObject({
      name: 'builtin__get_current_time',
      arguments: { timezone: 'Asia/Tokyo' },
    });
    expect(gemini.toolCalls[0]?.id.length).toBeGreaterThan(0);
    const tgi = await provider.completeWithTools(question, [weatherTool]);
    expect(tgi.toolCalls[0]).toMatchObject({
      name: 'mcp__weather__get_weather',
      arguments: { location: '仙台', date: 'tomorrow' },
    });
    const openrouter = await provider.completeWithTools(question, [weatherTool]);
    expect(openrouter.toolCalls[0]).toMatchObject({ name: 'builtin__get_current_time', arguments: {} });
    expect(openrouter.toolCalls[0]?.argumentsError).toBeUndefined();
    const qwen = await provider.complete(question);
    expect(qwen.content).toBe('4');
    const deepseek = await provider.complete(question);
    expect(deepseek.content).toBe('こんにちは！何をお手伝いしましょうか？');
    const streamed = await provider.completeWithTools(question, [weatherTool], { onTextDelta: () => {} });
    expect(streamed.toolCalls).toEqual([
      { id: 'call_o1lama77', name: 'mcp__weather__get_weather', arguments: { location: '横浜' } },
    ]);
  });
});

describe('compatible quirks without recordings', () => {
  const completion = (message: Record<string, unknown>) => ({
    json: {
      model: 'local',
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', ...message } }],
    },
  });

  it('a Hermes/Qwen tool call printed as text is parsed as a call and removed from the answer', async () => {
    vendor.reply(
      completion({
        content:
          '<think>need weather</think>Let me check.\n<tool_call>\n{"name": "mcp__weather__get_weather", "arguments": {"location": "大阪"}}\n</tool_call>',
      }),
    );
    const response = await compatible().completeWithTools(question, [weatherTool]);
    expect(response.content).toBe('Let me check.');
    expect(response.toolCalls).toEqual([
      {
        id: expect.stringMatching(/^call_/),
        name: 'mcp__weather__get_weather',
        arguments: { location: '大阪' },
      },
    ]);
    expect(response.stopReason).toBe('tool_calls');
  });

  it('repeated ids are made unique; invalid JSON arguments become a correctable error, not an exception', async () => {
    vendor.reply(
      completion({
        content: null,
        tool_calls: [
          { id: '0', type: 'function', function: { name: 'a', arguments: '{"x": 1' } },
          { id: '0', type: 'function', function: { name: 'b', arguments: '[1,2]' } },
        ],
      }),
    );
    const response = await compatible().completeWithTools(question, [weatherTool]);
    expect(new Set(response.toolCalls.map((call) => call.id)).size).toBe(2);
    expect(response.toolCalls[0]?.argumentsError).toContain('not valid JSON');
    expect(response.toolCalls[1]?.argumentsError).toContain('must be a JSON object');
  });

  it('streamed <think> reasoning is never shown as a delta', async () => {
    const chunk = (content: string) =>
      `data: ${JSON.stringify({ model: 'local', choices: [{ index: 0, delta: { content } }] })}\n\n`;
    vendor.reply({
      sse: `${chunk('<thi')}${chunk('nk>secret plan')}${chunk('</think>')}${chunk('答えは')}${chunk('4です')}data: [DONE]\n\n`,
    });
    const deltas: string[] = [];
    const response = await compatible().complete(question, { onTextDelta: (text) => deltas.push(text) });
    expect(deltas.join('')).toBe('答えは4です');
    expect(response.content).toBe('答えは4です');
  });

  it('a model without tool support falls back to complete, once detected or when configured', async () => {
    vendor.reply(
      {
        status: 400,
        json: { error: { message: 'registry.ollama.ai/library/gemma:2b does not support tools' } },
      },
      completion({ content: 'plain answer' }),
      completion({ content: 'again plain' }),
    );
    const provider = compatible();
    expect((await provider.completeWithTools(question, [weatherTool])).content).toBe('plain answer');
    expect((await provider.completeWithTools(question, [weatherTool])).content).toBe('again plain');
    expect(vendor.requests.map((request) => 'tools' in request.body)).toEqual([true, false, false]);

    vendor.reply(completion({ content: 'configured off' }));
    await compatible({ supportsTools: false }).completeWithTools(question, [weatherTool]);
    expect('tools' in (vendor.requests.at(-1)?.body ?? {})).toBe(false);
  });

  it('a tool whose schema cannot be expressed is left out with one warning naming it', async () => {
    const warnings: string[] = [];
    const logger = {
      debug() {},
      info() {},
      error() {},
      warn: (fields: Record<string, unknown>) => warnings.push(String(fields.tool)),
    };
    vendor.reply(completion({ content: 'ok' }), completion({ content: 'ok' }));
    const provider = openai({ logger });
    const bad: ToolDefinition = { name: 'bad_tool', description: 'x', inputSchema: { type: 'string' } };
    await provider.completeWithTools(question, [weatherTool, bad]);
    await provider.completeWithTools(question, [weatherTool, bad]);
    expect((vendor.requests[0]!.body.tools as unknown[]).length).toBe(1);
    expect(warnings).toEqual(['bad_tool']);
  });
});

describe('vendor errors become one error type, safe to show', () => {
  const cases: Array<
    [
      string,
      () => OpenAIProvider | AnthropicProvider,
      { status: number; json: unknown },
      Partial<LLMProviderError>,
    ]
  > = [
    [
      'OpenAI 401',
      () => openai(),
      {
        status: 401,
        json: {
          error: {
            message: 'Incorrect API key provided: sk-test-key-123456.',
            type: 'invalid_request_error',
            code: 'invalid_api_key',
          },
        },
      },
      { status: 401, code: 'AUTH', retryable: false },
    ],
    [
      'OpenAI 500',
      () => openai(),
      { status: 500, json: { error: { message: 'The server had an error' } } },
      { status: 500, code: 'SERVER', retryable: true },
    ],
    [
      'OpenAI context too long',
      () => openai(),
      {
        status: 400,
        json: {
          error: {
            message: "This model's maximum context length is 128000 tokens.",
            code: 'context_length_exceeded',
          },
        },
      },
      { status: 400, code: 'CONTEXT_TOO_LONG', retryable: false },
    ],
    [
      'Anthropic 401',
      () => anthropic(),
      {
        status: 401,
        json: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } },
      },
      { status: 401, code: 'AUTH' },
    ],
  ];
  for (const [title, make, reply, expected] of cases) {
    it(title, async () => {
      vendor.reply(reply);
      const error = await make()
        .complete(question)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(LLMProviderError);
      expect(error).toMatchObject(expected);
      expect((error as Error).message).not.toContain('sk-test-key-123456');
      expect((error as LLMProviderError).userMessage).not.toMatch(/sk-|invalid_api_key/);
    });
  }

  it('429s and 404s as the vendors send them', async () => {
    vendor.reply(
      { status: 429, json: fixtureJson('openai/error-429-insufficient-quota.json') },
      { status: 404, json: fixtureJson('openai/error-404-model-not-found.json') },
      { status: 429, json: fixtureJson('anthropic/error-429-rate-limit.json') },
    );
    await expect(openai().complete(question)).rejects.toMatchObject({
      provider: 'openai',
      status: 429,
      code: 'RATE_LIMITED',
      retryable: true,
    });
    await expect(openai().complete(question)).rejects.toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
      retryable: false,
    });
    await expect(anthropic().complete(question)).rejects.toMatchObject({
      provider: 'anthropic',
      status: 429,
      code: 'RATE_LIMITED',
    });
  });

  it('5xx is retried by the SDK before giving up', async () => {
    vendor.reply(
      { status: 503, json: {} },
      { status: 503, json: {} },
      { json: { model: 'm', choices: [{ message: { content: 'third time lucky' } }] } },
    );
    const response = await openai({ maxRetries: 2 }).complete(question);
    expect(response.content).toBe('third time lucky');
    expect(vendor.requests).toHaveLength(3);
  });

  it('a server that never answers times out as a retryable TIMEOUT; an unreachable one as CONNECTION', async () => {
    vendor.reply({ hang: true });
    await expect(openai({ timeout: 300 }).complete(question)).rejects.toMatchObject({
      code: 'TIMEOUT',
      retryable: true,
    });
    const unreachable = new OpenAIProvider({
      model: 'm',
      apiKey: 'k',
      baseURL: 'http://127.0.0.1:9/v1',
      maxRetries: 0,
    });
    await expect(unreachable.complete(question)).rejects.toMatchObject({
      code: 'CONNECTION',
      status: undefined,
    });
  });

  it('#48 an unreachable service is named by the base URL tried, without credentials or query', async () => {
    const unreachable = new OpenAIProvider({
      model: 'm',
      apiKey: 'k',
      baseURL: 'http://someone:pass-word-1@127.0.0.1:9/v1?api-version=2026-01-01',
      maxRetries: 0,
    });
    const error = await unreachable.complete(question).then(
      () => new Error('answered'),
      (caught: unknown) => caught as Error,
    );
    expect(error).toMatchObject({ code: 'CONNECTION' });
    expect(error.message).toContain('http://127.0.0.1:9/v1');
    expect(error.message).not.toMatch(/someone|pass-word|api-version/);
  });
});

describe('hardening 12: never more tools than the vendor accepts', () => {
  const many: ToolDefinition[] = Array.from({ length: 600 }, (_, index) => ({
    name: `mcp__server${Math.floor(index / 3)}__tool_${index}`,
    description: `Generic tool number ${index} for records`,
    inputSchema: { type: 'object', properties: {} },
  }));
  // The relevant one comes last in the servers' order.
  const tools = [...many, weatherTool];
  const completion = { json: { model: 'm', choices: [{ index: 0, message: { content: 'ok' } }] } };

  it('OpenAI and Anthropic requests carry at most 128 tools, the relevant ones kept, the rest logged', async () => {
    const warnings: Array<Record<string, unknown>> = [];
    const logger = {
      debug() {},
      info() {},
      error() {},
      warn: (fields: Record<string, unknown>) => warnings.push(fields),
    };
    vendor.reply(completion, { json: fixtureJson('anthropic/messages-text.json') });
    const asked: Message[] = [{ role: 'user', content: 'Japanese weather forecast for 東京, please' }];
    await openai({ logger }).completeWithTools(asked, tools);
    await anthropic({ logger }).completeWithTools(asked, tools);
    for (const request of vendor.requests) {
      const sent = request.body.tools as Array<{ name?: string; function?: { name: string } }>;
      expect(sent).toHaveLength(128);
      expect(sent.map((tool) => tool.function?.name ?? tool.name)).toContain('mcp__weather__get_weather');
    }
    expect(warnings.map((fields) => fields.leftOut)).toEqual([473, 473]);
  });

  it('under the limit nothing is left out and the order is the servers’ own', async () => {
    vendor.reply(completion);
    await openai().completeWithTools(question, many.slice(0, 5));
    const sent = vendor.requests[0]?.body.tools as Array<{ function: { name: string } }>;
    expect(sent.map((tool) => tool.function.name)).toEqual(many.slice(0, 5).map((tool) => tool.name));
  });
});

describe('Gemini 3 thought signatures (Google’s OpenAI-compatible endpoint)', () => {
  const gemini = () =>
    new OpenAICompatibleProvider({
      model: 'gemini-3.8-flash',
      apiKey: 'gemini-test-key-123456',
      baseURL: vendor.baseURL,
      maxRetries: 0,
    });
  const signed = 'Q2lRQnFkMTBHZW1pbmkzVGhvdWdodFNpZ25hdHVyZUZvclRlc3RzMDAx';

  it('the signature of a call goes back with it in the next request (before: dropped, and Google answered 400)', async () => {
    vendor.reply(
      { json: fixtureJson('compatible/gemini-3-tool-call-thought-signature.json') },
      { json: fixtureJson('openai/chat-text.json') },
    );
    const provider = gemini();
    const first = await provider.completeWithTools(question, [weatherTool]);
    expect(first.toolCalls.map((call) => call.vendorData)).toEqual([
      { extra_content: { google: { thought_signature: signed } } },
      undefined,
    ]);
    const next: Message[] = [
      ...question,
      { role: 'assistant', content: '', toolCalls: first.toolCalls },
      ...first.toolCalls.map((call) => ({
        role: 'tool' as const,
        toolCallId: call.id,
        content: '晴れ',
        isError: false,
      })),
    ];
    const second = await provider.completeWithTools(next, [weatherTool]);
    expect(second.content.length).toBeGreaterThan(0);
    const sent = vendor.requests.at(-1)?.body.messages as Array<{
      tool_calls?: Array<Record<string, unknown>>;
    }>;
    expect(sent.find((message) => message.tool_calls)?.tool_calls?.[0]?.extra_content).toEqual({
      google: { thought_signature: signed },
    });
  });

  it('streamed calls keep theirs; a history without it is refused as Google refuses it', async () => {
    vendor.reply({ sse: fixtureText('compatible/gemini-3-tool-call-thought-signature.stream.sse') });
    const streamed = await gemini().completeWithTools(question, [weatherTool], { onTextDelta: () => {} });
    expect(streamed.toolCalls[0]?.vendorData).toEqual({
      extra_content: { google: { thought_signature: 'Q2lRQnFkMTBHZW1pbmkzU3RyZWFtZWRTaWduYXR1cmUwMDI=' } },
    });
    // What an adapter that drops the signature sends: the fake answers like Google.
    vendor.reply({ json: fixtureJson('openai/chat-text.json') });
    await expect(gemini().completeWithTools(afterTools, [weatherTool])).rejects.toThrow(
      /missing a thought_signature/,
    );
  });
});
