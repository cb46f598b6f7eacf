import type { LLMResponse, StopReason } from '@ai-assistant/chat-types';

import { normalizeToolCalls, type RawToolCall } from '../normalize-tool-calls.js';

/** A tool call as a Chat Completions server sent it; servers differ in what they fill in. */
export type RawOpenAIToolCall = RawToolCall;

/** Options of the response mappers. */
export interface OpenAIResponseOptions {
  /** Repair what local servers really send (ids, object arguments, think tags, tool calls as text). */
  lenient: boolean;
}

/** Maps `finish_reason` to the neutral stop reason. */
export function mapOpenAIFinishReason(reason: unknown): StopReason {
  switch (reason) {
    case 'stop':
      return 'end';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'length':
      return 'max_tokens';
    case 'content_filter':
      return 'content_filter';
    default:
      return 'other';
  }
}

/** Removes `<think>…</think>` reasoning (and an unclosed trailing one) from visible text. */
export function stripThinking(text: string): string {
  return text
    .replace(/<think>[\s\S]*?<\/think>/g, '')
    .replace(/<think>[\s\S]*$/, '')
    .trim();
}

/** Hermes/Qwen-style tool calls written as text: `<tool_call>{"name":…,"arguments":…}</tool_call>`. */
export function extractTextToolCalls(text: string): { text: string; calls: RawOpenAIToolCall[] } {
  const calls: RawOpenAIToolCall[] = [];
  const remaining = text.replace(/<tool_call>\s*([\s\S]*?)\s*(?:<\/tool_call>|$)/g, (whole, body: string) => {
    try {
      const parsed = JSON.parse(body) as { name?: unknown; arguments?: unknown; parameters?: unknown };
      if (typeof parsed.name !== 'string') return whole;
      calls.push({ name: parsed.name, arguments: parsed.arguments ?? parsed.parameters ?? {} });
      return '';
    } catch {
      return whole;
    }
  });
  return { text: remaining.trim(), calls };
}

/** Builds the neutral response from the pieces of a completion (whole or streamed). */
export function assembleOpenAIResponse(
  parts: {
    content: string;
    toolCalls: RawOpenAIToolCall[];
    finishReason: unknown;
    model: string;
    usage?: { prompt_tokens?: number; completion_tokens?: number };
  },
  options: OpenAIResponseOptions,
): LLMResponse {
  let content = parts.content;
  let raw = parts.toolCalls;
  if (options.lenient) {
    content = stripThinking(content);
    if (raw.length === 0) {
      const extracted = extractTextToolCalls(content);
      content = extracted.text;
      raw = extracted.calls;
    }
  }
  const toolCalls = normalizeToolCalls(raw);
  return {
    content,
    model: parts.model,
    ...(parts.usage
      ? {
          usage: {
            inputTokens: parts.usage.prompt_tokens ?? 0,
            outputTokens: parts.usage.completion_tokens ?? 0,
          },
        }
      : {}),
    toolCalls,
    stopReason: toolCalls.length > 0 ? 'tool_calls' : mapOpenAIFinishReason(parts.finishReason),
  };
}

interface RawCompletion {
  model?: unknown;
  choices?: Array<{
    finish_reason?: unknown;
    message?: {
      content?: unknown;
      tool_calls?: Array<{
        id?: unknown;
        function?: { name?: unknown; arguments?: unknown };
        extra_content?: unknown;
      }>;
    };
  }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
}

/** Maps a (non-streamed) Chat Completions response to the neutral response. */
export function fromOpenAIResponse(body: unknown, options: OpenAIResponseOptions): LLMResponse {
  const completion = body as RawCompletion;
  const choice = completion.choices?.[0];
  const message = choice?.message;
  return assembleOpenAIResponse(
    {
      content: typeof message?.content === 'string' ? message.content : '',
      toolCalls: (message?.tool_calls ?? []).map((call) => ({
        id: call.id,
        name: call.function?.name,
        arguments: call.function?.arguments,
        ...(call.extra_content !== undefined ? { vendorData: { extra_content: call.extra_content } } : {}),
      })),
      finishReason: choice?.finish_reason,
      model: typeof completion.model === 'string' ? completion.model : '',
      ...(completion.usage ? { usage: completion.usage } : {}),
    },
    options,
  );
}
