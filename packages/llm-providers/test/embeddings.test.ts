import { EmbeddingRanker, type ToolDefinition } from '@ai-assistant/host-core';
import { type FakeVendor, fakeEmbedding, recordingLogger, startFakeVendor } from '@ai-assistant/test-kit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProviderFromEnv } from '../src/create-provider-from-env.js';
import { LLMProviderError } from '../src/provider-error.js';

describe('#42 embeddings through the providers', () => {
  let vendor: FakeVendor;
  beforeEach(async () => {
    vendor = await startFakeVendor();
  });
  afterEach(async () => {
    await vendor.close();
  });

  it('#42 OpenAI embeds with its default model, in order, floats asked for; Gemini and compatible servers only with EMBEDDINGS_MODEL, in requests of 100; Anthropic never', async () => {
    const openai = createProviderFromEnv({
      OPENAI_API_KEY: 'sk-embed-test-0123',
      OPENAI_BASE_URL: vendor.baseURL,
    });
    expect(openai.embeddingModel).toBe('text-embedding-3-small');
    const texts = ['Get the account balance', '外の空気はきれい？'];
    expect(await openai.embed?.(texts)).toEqual(texts.map((text) => fakeEmbedding(text)));
    expect(vendor.embeddings.requests.map((request) => request.body)).toEqual([
      { model: 'text-embedding-3-small', input: texts, encoding_format: 'float' },
    ]);
    expect(vendor.requests).toEqual([]);

    const local = { LLM_PROVIDER: 'openai-compatible', LLM_BASE_URL: vendor.baseURL };
    expect(createProviderFromEnv(local).embed).toBeUndefined();
    expect(
      createProviderFromEnv({ GEMINI_API_KEY: 'g-key-0123456', GEMINI_BASE_URL: vendor.baseURL }).embed,
    ).toBeUndefined();
    expect(
      createProviderFromEnv({ ANTHROPIC_API_KEY: 'sk-ant-x', EMBEDDINGS_MODEL: 'any' }).embed,
    ).toBeUndefined();
    expect(
      createProviderFromEnv({ OPENAI_API_KEY: 'sk-embed-test-0123', EMBEDDINGS_MODEL: 'none' }).embed,
    ).toBeUndefined();

    const ollama = createProviderFromEnv({ ...local, EMBEDDINGS_MODEL: 'nomic-embed-text' });
    vendor.embeddings.requests.length = 0;
    const many = Array.from({ length: 230 }, (_, index) => `tool number ${index}`);
    const vectors = await ollama.embed?.(many);
    expect(vectors).toHaveLength(230);
    expect(vectors?.[229]).toEqual(fakeEmbedding('tool number 229'));
    expect(vendor.embeddings.requests.map((request) => (request.body.input as string[]).length)).toEqual([
      100, 100, 30,
    ]);
    expect(vendor.embeddings.requests[0]?.body.model).toBe('nomic-embed-text');
  });

  it('#42 an empty text is refused before any request; a failing endpoint rejects with the provider error, key redacted', async () => {
    const openai = createProviderFromEnv({
      OPENAI_API_KEY: 'sk-embed-test-0123',
      OPENAI_BASE_URL: vendor.baseURL,
      LLM_MAX_RETRIES: '0',
    });
    await expect(openai.embed?.(['a tool', ' '])).rejects.toThrow(/cannot embed text 1: it is empty/);
    expect(vendor.embeddings.requests).toEqual([]);
    vendor.embeddings.fail(503);
    const failure = await openai.embed?.(['a tool']).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LLMProviderError);
    expect(failure).toMatchObject({ status: 503, code: 'SERVER', retryable: true });
    expect(String((failure as Error).message)).not.toContain('sk-embed-test-0123');
  });

  it('#42 the ranker over a real provider: a changed description alone is embedded again; an outage warns once, rests the endpoint, and its end is logged', async () => {
    const provider = createProviderFromEnv({
      OPENAI_API_KEY: 'sk-embed-test-0123',
      OPENAI_BASE_URL: vendor.baseURL,
      LLM_MAX_RETRIES: '0',
    });
    const logger = recordingLogger();
    let clock = 0;
    const ranker = new EmbeddingRanker({ provider, logger, now: () => clock });
    const tool = (name: string, description: string): ToolDefinition => ({
      name,
      description,
      inputSchema: { type: 'object' },
    });
    const catalog = [
      tool('mcp__air__get_air_quality', 'Current PM2.5 and ozone index of a city.'),
      tool('mcp__bank__retrieve_balance', 'Available and pending funds of the account.'),
      tool('mcp__mail__search_email', 'Search the inbox.'),
    ];
    const inputs = () => vendor.embeddings.requests.flatMap((request) => request.body.input as string[]);

    const similar = await ranker.rank('残高を見せて', catalog);
    const best = [...(similar ?? new Map<string, number>())].sort((left, right) => right[1] - left[1])[0];
    expect(best?.[0]).toBe('mcp__bank__retrieve_balance');
    expect(inputs()).toHaveLength(4);

    vendor.embeddings.requests.length = 0;
    const changed = [...catalog.slice(0, 2), tool('mcp__mail__search_email', 'Search the inbox for email.')];
    expect(await ranker.rank('メールを探して', changed)).toBeDefined();
    // The question and the changed tool, concurrently: in either order.
    expect(inputs().sort()).toEqual(
      ['mail search email\nSearch the inbox for email.', 'メールを探して'].sort(),
    );

    vendor.embeddings.fail(502);
    vendor.embeddings.requests.length = 0;
    expect(await ranker.rank('残高は？', catalog)).toBeUndefined();
    clock += 30_000;
    expect(await ranker.rank('残高は？', catalog)).toBeUndefined();
    expect(vendor.embeddings.requests).toHaveLength(1);
    clock += 31_000;
    expect(await ranker.rank('残高は？', catalog)).toBeUndefined();
    expect(vendor.embeddings.requests).toHaveLength(2);
    vendor.embeddings.fail(undefined);
    clock += 61_000;
    expect(await ranker.rank('残高は？', catalog)).toBeDefined();
    const said = logger.lines.filter((line) => line.level !== 'debug');
    expect(said.map((line) => [line.level, line.message])).toEqual([
      ['warn', 'embeddings failed: tools are chosen by words alone until they answer again'],
      ['info', 'embeddings answer again'],
    ]);
    expect(said[0]?.fields).toMatchObject({ provider: 'openai', model: 'text-embedding-3-small' });
    expect(JSON.stringify(logger.lines)).not.toContain('sk-embed-test-0123');
  });
});
