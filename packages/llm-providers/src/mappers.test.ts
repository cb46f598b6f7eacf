import { describe, expect, it } from 'vitest';
import { mapAnthropicStopReason } from './anthropic/convert-from-anthropic-response.js';
import { toAnthropicRequest } from './anthropic/convert-to-anthropic-request.js';
import { compileToolSchema } from './compile-tool-schema.js';
import { createProviderFromEnv, ProviderConfigError } from './create-provider-from-env.js';
import {
  extractTextToolCalls,
  fromOpenAIResponse,
  mapOpenAIFinishReason,
  stripThinking,
} from './openai/convert-from-openai-response.js';
import { toOpenAIRequest } from './openai/convert-to-openai-request.js';
import { redactKey, toProviderError } from './provider-error.js';

describe('schema compilation', () => {
  it('inlines $refs (also nested and in arrays), drops $defs and $schema, adds items, keeps property names', () => {
    const compiled = compileToolSchema({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        where: { $ref: '#/$defs/place' },
        stops: { type: 'array', items: { $ref: '#/definitions/stop' } },
        tags: { type: ['array', 'null'] },
        $ref: { type: 'string' },
      },
      $defs: { place: { type: 'string' } },
      definitions: { stop: { type: 'object', properties: { at: { $ref: '#/$defs/place' } } } },
    });
    expect(compiled).toEqual({
      type: 'object',
      properties: {
        where: { type: 'string' },
        stops: { type: 'array', items: { type: 'object', properties: { at: { type: 'string' } } } },
        tags: { type: ['array', 'null'], items: {} },
        $ref: { type: 'string' },
      },
    });
  });

  it('makes an empty schema an object schema, stops at recursive refs, rejects what cannot be expressed', () => {
    expect(compileToolSchema({})).toEqual({ type: 'object', properties: {} });
    const recursive = compileToolSchema({ type: 'object', properties: { node: { $ref: '#' } } });
    expect(recursive.type).toBe('object');
    expect(() => compileToolSchema({ type: 'string' })).toThrow(/top level must be an object/);
    expect(() =>
      compileToolSchema({ type: 'object', properties: { x: { $ref: 'http://elsewhere/schema' } } }),
    ).toThrow(/unresolvable/);
  });
});

describe('OpenAI mappers', () => {
  it('builds a request with tools, assistant tool_calls and tool messages', () => {
    const request = toOpenAIRequest(
      [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 't', arguments: { a: 1 } }] },
        { role: 'tool', toolCallId: 'c', content: 'r' },
      ],
      [{ name: 't', description: 'd', inputSchema: { type: 'object', properties: {} } }],
      { model: 'm', maxTokens: 10 },
    );
    expect(request).toEqual({
      model: 'm',
      messages: [
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c', type: 'function', function: { name: 't', arguments: '{"a":1}' } }],
        },
        { role: 'tool', tool_call_id: 'c', content: 'r' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 't', description: 'd', parameters: { type: 'object', properties: {} } },
        },
      ],
      max_completion_tokens: 10,
    });
  });

  it('maps finish reasons and keeps think tags unless lenient', () => {
    expect(['stop', 'tool_calls', 'length', 'content_filter', 'weird'].map(mapOpenAIFinishReason)).toEqual([
      'end',
      'tool_calls',
      'max_tokens',
      'content_filter',
      'other',
    ]);
    const body = {
      model: 'm',
      choices: [{ finish_reason: 'stop', message: { content: '<think>x</think>ok' } }],
    };
    expect(fromOpenAIResponse(body, { lenient: false }).content).toBe('<think>x</think>ok');
    expect(fromOpenAIResponse(body, { lenient: true }).content).toBe('ok');
  });

  it('strips reasoning and extracts text tool calls', () => {
    expect(stripThinking('<think>a</think> b <think>unfinished')).toBe('b');
    expect(extractTextToolCalls('x <tool_call>{"name":"f","parameters":{"k":2}}</tool_call>')).toEqual({
      text: 'x',
      calls: [{ name: 'f', arguments: { k: 2 } }],
    });
    expect(extractTextToolCalls('<tool_call>not json</tool_call>').calls).toEqual([]);
  });
});

describe('Anthropic mappers', () => {
  it('joins system messages and drops empty text blocks', () => {
    const request = toAnthropicRequest(
      [
        { role: 'system', content: 'A' },
        { role: 'system', content: 'B' },
        { role: 'user', content: 'q' },
        { role: 'assistant', content: '  ' },
        { role: 'user', content: 'again' },
      ],
      [],
      { model: 'm', maxTokens: 5 },
    );
    expect(request).toEqual({
      model: 'm',
      max_tokens: 5,
      system: 'A\n\nB',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'q' },
            { type: 'text', text: 'again' },
          ],
        },
      ],
    });
  });

  it('maps stop reasons', () => {
    expect(
      ['end_turn', 'tool_use', 'max_tokens', 'stop_sequence', 'refusal', 'pause_turn'].map(
        mapAnthropicStopReason,
      ),
    ).toEqual(['end', 'tool_calls', 'max_tokens', 'end', 'content_filter', 'other']);
  });
});

describe('createProviderFromEnv', () => {
  it('chooses the provider from the key present, with default models', () => {
    expect(createProviderFromEnv({ OPENAI_API_KEY: 'sk-x' }).name).toBe('openai');
    expect(createProviderFromEnv({ ANTHROPIC_API_KEY: 'sk-ant-x' }).name).toBe('anthropic');
    expect(createProviderFromEnv({ LLM_BASE_URL: 'http://127.0.0.1:1234/v1' }).name).toBe(
      'openai-compatible',
    );
    expect(createProviderFromEnv({ LLM_PROVIDER: 'openai-compatible' }).name).toBe('openai-compatible');
    expect(
      createProviderFromEnv({ LLM_PROVIDER: 'anthropic', ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: 'o' }).name,
    ).toBe('anthropic');
  });

  it('names the variable to set, never a value', () => {
    expect(() => createProviderFromEnv({})).toThrow(/OPENAI_API_KEY.*ANTHROPIC_API_KEY.*LLM_BASE_URL/);
    expect(() => createProviderFromEnv({ LLM_PROVIDER: 'openai' })).toThrow(
      'LLM_PROVIDER is openai but OPENAI_API_KEY is not set',
    );
    expect(() => createProviderFromEnv({ LLM_PROVIDER: 'anthropic', OPENAI_API_KEY: 'sk-secret' })).toThrow(
      /ANTHROPIC_API_KEY is not set/,
    );
    expect(() => createProviderFromEnv({ LLM_PROVIDER: 'bard' })).toThrow(ProviderConfigError);
    expect(() =>
      createProviderFromEnv({ OPENAI_API_KEY: 'sk-secret-value', LLM_TIMEOUT_MS: 'soon' }),
    ).toThrow(/LLM_TIMEOUT_MS/);
    try {
      createProviderFromEnv({ OPENAI_API_KEY: 'sk-secret-value', LLM_TIMEOUT_MS: 'soon' });
    } catch (error) {
      expect((error as Error).message).not.toContain('sk-secret-value');
    }
  });

  it('redacts vendor text with the function it is handed (default: its own API key)', () => {
    expect(redactKey('my-custom-secret')('token my-custom-secret leaked')).toBe('token [REDACTED] leaked');
    const handed = (text: string) => text.replace('sk-proj-abcdef123456', '[REDACTED]');
    const error = toProviderError(
      'openai',
      new Error('Incorrect API key provided: sk-proj-abcdef123456.'),
      handed,
    );
    expect(error.message).toBe('openai: Incorrect API key provided: [REDACTED].');
  });
});
