import type { Message } from '@ai-assistant/host-core';
import { completion, type FakeVendor, startFakeVendor } from '@ai-assistant/test-kit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../src/anthropic/anthropic-provider.js';
import { createProviderFromEnv } from '../src/create-provider-from-env.js';
import { OpenAICompatibleProvider, OpenAIProvider } from '../src/openai/openai-provider.js';

// A 1×1 PNG, as a tool returns it.
const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const withImage: Message[] = [
  { role: 'user', content: 'この画像は？' },
  {
    role: 'assistant',
    content: '',
    toolCalls: [{ id: 'call_1', name: 'mcp__files__read_media_file', arguments: {} }],
  },
  {
    role: 'tool',
    toolCallId: 'call_1',
    content: '[image: image/png, 68 bytes]',
    isError: false,
    images: [{ mimeType: 'image/png', data: png }],
  },
];

let vendor: FakeVendor;
beforeEach(async () => {
  vendor = await startFakeVendor();
  vendor.respondWith((request) => completion(request, { text: '赤い点です' }));
});
afterEach(() => vendor.close());

describe('a tool’s images reach a vision model in each vendor’s format', () => {
  it('OpenAI: the images follow the tool results as a user message of image_url data URLs (tool messages take none)', async () => {
    const provider = new OpenAIProvider({
      model: 'gpt-4o',
      apiKey: 'sk-test-key-123456',
      baseURL: vendor.baseURL,
      maxRetries: 0,
    });
    expect(provider.supportsImages).toBe(true);
    const answer = await provider.complete(withImage);
    // The fake enforces OpenAI's rules: an image in the tool message itself is a 400.
    expect(answer.content).toBe('赤い点です');
    const messages = vendor.requests[0]?.body.messages as Array<{ role: string; content: unknown }>;
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(messages[2]?.content).toBe('[image: image/png, 68 bytes]');
    expect(messages[3]?.content).toEqual([
      { type: 'text', text: 'Images returned by tool call call_1:' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
    ]);
  });

  it('Anthropic: the images travel inside the tool_result as base64 image blocks', async () => {
    const provider = new AnthropicProvider({
      model: 'claude-sonnet-4-5',
      apiKey: 'sk-ant-test-key-123456',
      baseURL: vendor.baseURL.replace(/\/v1$/, ''),
      maxRetries: 0,
    });
    expect(provider.supportsImages).toBe(true);
    const tool = {
      name: 'mcp__files__read_media_file',
      description: 'Reads an image',
      inputSchema: { type: 'object' },
    };
    await provider.completeWithTools(withImage, [tool]);
    const messages = vendor.requests[0]?.body.messages as Array<{
      role: string;
      content: Array<Record<string, unknown>>;
    }>;
    expect(messages[2]?.content[0]).toMatchObject({
      type: 'tool_result',
      tool_use_id: 'call_1',
      content: [
        { type: 'text', text: '[image: image/png, 68 bytes]' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
      ],
    });
  });

  it('the fakes refuse what the vendors refuse: an image in a tool message, an unknown image type', async () => {
    const raw = async (path: string, body: unknown) =>
      (
        await fetch(`${vendor.baseURL}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).status;
    expect(
      await raw('/chat/completions', {
        model: 'gpt-4o',
        messages: [
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c', type: 'function', function: { name: 't', arguments: '{}' } }],
          },
          {
            role: 'tool',
            tool_call_id: 'c',
            content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }],
          },
        ],
      }),
    ).toBe(400);
    expect(
      await raw('/messages', {
        model: 'claude',
        max_tokens: 10,
        messages: [
          {
            role: 'user',
            content: [{ type: 'image', source: { type: 'base64', media_type: 'image/bmp', data: png } }],
          },
        ],
      }),
    ).toBe(400);
  });

  it('a local model is not sent images unless LLM_VISION=true says it reads them', () => {
    expect(new OpenAICompatibleProvider({ model: 'qwen3', baseURL: vendor.baseURL }).supportsImages).toBe(
      false,
    );
    const provider = createProviderFromEnv({
      LLM_PROVIDER: 'openai-compatible',
      LLM_BASE_URL: vendor.baseURL,
      LLM_MODEL: 'qwen2.5-vl',
      LLM_VISION: 'true',
    });
    expect(provider.supportsImages).toBe(true);
    expect(
      createProviderFromEnv({ OPENAI_API_KEY: 'sk-test-key-123456', LLM_VISION: 'false' }).supportsImages,
    ).toBe(false);
  });
});

describe('an image a person attached reaches a vision model in each vendor’s format (issue 30)', () => {
  const asked: Message[] = [
    { role: 'user', content: 'この写真の場所は？', images: [{ mimeType: 'image/png', data: png }] },
  ];

  it('OpenAI: the question’s content is a text part and an image_url data URL', async () => {
    const provider = new OpenAIProvider({
      model: 'gpt-4o',
      apiKey: 'sk-test-key-123456',
      baseURL: vendor.baseURL,
      maxRetries: 0,
    });
    expect((await provider.complete(asked)).content).toBe('赤い点です');
    const messages = vendor.requests[0]?.body.messages as Array<{ role: string; content: unknown }>;
    expect(messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'この写真の場所は？' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
        ],
      },
    ]);
  });

  it('Anthropic: the question is a text block and a base64 image block', async () => {
    const provider = new AnthropicProvider({
      model: 'claude-sonnet-4-5',
      apiKey: 'sk-ant-test-key-123456',
      baseURL: vendor.baseURL.replace(/\/v1$/, ''),
      maxRetries: 0,
    });
    // The fake checks the request against the Messages rules (a 400 would throw here).
    await provider.complete(asked);
    const messages = vendor.requests[0]?.body.messages as Array<{ role: string; content: unknown }>;
    expect(messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'この写真の場所は？' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
        ],
      },
    ]);
  });
});
