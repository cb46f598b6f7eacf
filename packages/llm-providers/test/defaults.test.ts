import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type FakeVendor, startFakeVendor } from '@ai-assistant/test-kit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createProviderFromEnv,
  defaultLlmTimeoutMs,
  defaultModels,
} from '../src/create-provider-from-env.js';
import { fixtureJson } from './fixtures.js';

/** The models the installed Anthropic SDK warns about on every request (its own deprecation list). */
function anthropicDeprecatedModels(): string[] {
  const require = createRequire(import.meta.url);
  const sdk = dirname(require.resolve('@anthropic-ai/sdk'));
  const source = readFileSync(join(sdk, 'resources', 'messages', 'messages.js'), 'utf8');
  const list = /DEPRECATED_MODELS = \{([^}]*)\}/.exec(source)?.[1];
  if (list === undefined)
    throw new Error('the Anthropic SDK no longer has a DEPRECATED_MODELS list; update this test');
  return [...list.matchAll(/'([^']+)'\s*:/g)].map((match) => match[1] as string);
}

describe('current default models', () => {
  it('the default Anthropic model is not on the installed SDK’s deprecation list', () => {
    const deprecated = anthropicDeprecatedModels();
    expect(deprecated.length).toBeGreaterThan(0);
    expect(deprecated).not.toContain(defaultModels.anthropic);
  });

  it('every request has a finite timeout by default (60 s), and LLM_TIMEOUT_MS overrides it', () => {
    expect(defaultLlmTimeoutMs).toBe(60_000);
    const timeoutOf = (env: NodeJS.ProcessEnv) =>
      (createProviderFromEnv(env) as unknown as { client: { timeout: number } }).client.timeout;
    expect(timeoutOf({ OPENAI_API_KEY: 'sk-x' })).toBe(60_000);
    expect(timeoutOf({ ANTHROPIC_API_KEY: 'sk-ant-x', LLM_TIMEOUT_MS: '5000' })).toBe(5000);
  });
});

describe('vendor rules on the default models', () => {
  let vendor: FakeVendor;
  beforeEach(async () => {
    vendor = await startFakeVendor();
  });
  afterEach(() => vendor.close());

  it('the default OpenAI model is sent max_completion_tokens and no temperature, which its rules require', async () => {
    vendor.reply({ json: fixtureJson('openai/chat-text.json') });
    const provider = createProviderFromEnv({
      OPENAI_API_KEY: 'sk-test-key-123456',
      OPENAI_BASE_URL: vendor.baseURL,
      LLM_MAX_TOKENS: '500',
      LLM_MAX_RETRIES: '0',
    });
    const answer = await provider.complete([{ role: 'user', content: '東京の天気は？' }]);
    expect(answer.content.length).toBeGreaterThan(0);
    const body = vendor.requests[0]!.body;
    expect(body).toMatchObject({ model: defaultModels.openai, max_completion_tokens: 500 });
    expect(body).not.toHaveProperty('max_tokens');
    expect(body).not.toHaveProperty('temperature');
  });
});

describe('LLM_PROVIDER=gemini', () => {
  let vendor: FakeVendor;
  beforeEach(async () => {
    vendor = await startFakeVendor('/v1beta/openai');
  });
  afterEach(() => vendor.close());

  it('uses Gemini’s OpenAI-compatible endpoint with GEMINI_API_KEY (or GOOGLE_API_KEY) and a Gemini model', async () => {
    vendor.reply({ json: fixtureJson('compatible/gemini-empty-tool-call-id.json') });
    const provider = createProviderFromEnv({
      GOOGLE_API_KEY: 'AIza-test-key-123456',
      LLM_PROVIDER: 'gemini',
      GEMINI_BASE_URL: `${vendor.baseURL}/`,
      LLM_MAX_RETRIES: '0',
    });
    expect(provider.name).toBe('gemini');
    const answer = await provider.completeWithTools(
      [{ role: 'user', content: '東京の天気は？' }],
      [
        {
          name: 'mcp__weather__get_weather',
          description: 'Japanese weather',
          inputSchema: {
            type: 'object',
            properties: { location: { type: 'string' } },
            required: ['location'],
          },
        },
      ],
    );
    // Gemini leaves the call id empty; the adapter makes one so the result can refer to it.
    expect(answer.toolCalls[0]).toMatchObject({
      name: 'builtin__get_current_time',
      id: expect.stringMatching(/.+/),
    });
    const request = vendor.requests[0]!;
    expect(request.path).toBe('/v1beta/openai/chat/completions');
    expect(request.headers.authorization).toBe('Bearer AIza-test-key-123456');
    expect(request.body.model).toBe(defaultModels.gemini);
  });

  it('is chosen when only GEMINI_API_KEY is set, and names both variables when neither is', () => {
    expect(createProviderFromEnv({ GEMINI_API_KEY: 'AIza-x' }).name).toBe('gemini');
    expect(() => createProviderFromEnv({ LLM_PROVIDER: 'gemini' })).toThrow(
      /GEMINI_API_KEY nor GOOGLE_API_KEY/,
    );
  });
});
