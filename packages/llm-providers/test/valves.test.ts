import { ChatService, type LLMProvider, McpClientManager, parseMcpConfig } from '@ai-assistant/host-core';
import { type FakeRequest, type FakeVendor, startFakeVendor } from '@ai-assistant/test-kit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../src/anthropic/anthropic-provider.js';
import { OpenAIProvider } from '../src/openai/openai-provider.js';

let vendor: FakeVendor;
let manager: McpClientManager;
beforeEach(async () => {
  vendor = await startFakeVendor();
  manager = new McpClientManager();
  await manager.connect(
    parseMcpConfig(JSON.stringify({ mcpServers: { calc: { type: 'builtin' } } }), 'test.json', {}),
  );
});
afterEach(async () => {
  await manager.close();
  await vendor.close();
});

/** A model that asks for `calculate` on every request that lets it, and answers in words otherwise. */
function loopingModel(request: FakeRequest) {
  const body = request.body;
  const round = vendor.requests.length;
  const anthropic = request.path.endsWith('/messages');
  const choice = body.tool_choice as { type?: string } | string | undefined;
  const toolsForbidden = choice === 'none' || (typeof choice === 'object' && choice.type === 'none');
  if (anthropic) {
    const content = toolsForbidden
      ? [{ type: 'text', text: 'これまでの結果: 2' }]
      : [
          {
            type: 'tool_use',
            id: `toolu_${round}`,
            name: 'mcp__calc__calculate',
            input: { expression: '1+1' },
          },
        ];
    return {
      json: {
        id: `msg_${round}`,
        type: 'message',
        role: 'assistant',
        model: String(body.model),
        content,
        stop_reason: toolsForbidden ? 'end_turn' : 'tool_use',
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 5 },
      },
    };
  }
  const message = toolsForbidden
    ? { role: 'assistant', content: 'これまでの結果: 2' }
    : {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: `call_${round}`,
            type: 'function',
            function: { name: 'mcp__calc__calculate', arguments: '{"expression":"1+1"}' },
          },
        ],
      };
  return {
    json: {
      id: `chatcmpl-${round}`,
      object: 'chat.completion',
      created: 1_773_270_000,
      model: String(body.model),
      choices: [{ index: 0, message, finish_reason: toolsForbidden ? 'stop' : 'tool_calls' }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    },
  };
}

const providers: Array<[string, () => LLMProvider]> = [
  [
    'Anthropic',
    () =>
      new AnthropicProvider({
        model: 'claude-test',
        apiKey: 'sk-ant-test-key-123456',
        baseURL: vendor.baseURL.replace(/\/v1$/, ''),
        maxRetries: 0,
      }),
  ],
  [
    'OpenAI',
    () =>
      new OpenAIProvider({
        model: 'gpt-test',
        apiKey: 'sk-test-key-123456',
        baseURL: vendor.baseURL,
        maxRetries: 0,
      }),
  ],
];

describe.each(providers)('the round limit on %s', (_name, provider) => {
  it('ac18 the forced final answer is accepted by the vendor: tools sent with tool choice "none"', async () => {
    vendor.respondWith(loopingModel);
    const chat = new ChatService({ provider: provider(), tools: manager });
    const result = await chat.respond({ history: [], userMessage: '1+1 を計算し続けて' });
    expect(result).toMatchObject({ text: 'これまでの結果: 2', limitReached: true, rounds: 10 });
    expect(vendor.requests).toHaveLength(11);
    const final = vendor.requests.at(-1)!.body;
    // The history holds tool calls and results, so the tools go along; the model may not call them.
    expect((final.tools as unknown[]).length).toBeGreaterThan(0);
    expect(JSON.stringify(final.tool_choice)).toMatch(/none/);
  });
});
