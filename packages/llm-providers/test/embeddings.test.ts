import { type FakeVendor, fakeEmbedding, startFakeVendor } from '@ai-assistant/test-kit';
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
});
