import type { LLMResponse } from '@ai-assistant/chat-types';
import {
  assembleOpenAIResponse,
  type OpenAIResponseOptions,
  type RawOpenAIToolCall,
} from './convert-from-openai-response.js';

interface RawChunk {
  model?: unknown;
  choices?: Array<{
    finish_reason?: unknown;
    delta?: {
      content?: unknown;
      tool_calls?: Array<{
        index?: number;
        id?: unknown;
        function?: { name?: unknown; arguments?: unknown };
        /** Gemini: the call's thought signature, to be sent back with it. */
        extra_content?: unknown;
      }>;
    };
  }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
}

const hiddenTags = ['<think>', '<tool_call>'];

/** The part of streamed text a user may see so far: no reasoning, no tool calls written as text. */
function visiblePrefix(text: string, lenient: boolean): string {
  if (!lenient) return text;
  let visible = text.replace(/<think>[\s\S]*?<\/think>/g, '');
  for (const tag of hiddenTags) {
    const at = visible.indexOf(tag);
    if (at !== -1) visible = visible.slice(0, at);
  }
  // Hold back a partial tag at the end ("<thi") until it is known.
  for (const tag of hiddenTags) {
    for (let length = tag.length - 1; length > 0; length--) {
      if (visible.endsWith(tag.slice(0, length))) return visible.slice(0, -length).trimStart();
    }
  }
  return visible.trimStart();
}

/**
 * Accumulates a Chat Completions stream: text deltas reported as they arrive, tool-call fragments
 * assembled by index (servers that omit the index get their position), usage from the last chunk.
 */
export async function collectOpenAIStream(
  chunks: AsyncIterable<unknown>,
  options: OpenAIResponseOptions & { onTextDelta?: (text: string) => void },
): Promise<LLMResponse> {
  let content = '';
  let emitted = 0;
  let model = '';
  let finishReason: unknown;
  let usage: { prompt_tokens?: number; completion_tokens?: number } | undefined;
  const calls = new Map<number, RawOpenAIToolCall & { arguments: unknown }>();
  for await (const item of chunks) {
    const chunk = item as RawChunk;
    if (typeof chunk.model === 'string' && chunk.model) model = chunk.model;
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    if (choice.finish_reason) finishReason = choice.finish_reason;
    const delta = choice.delta;
    if (typeof delta?.content === 'string' && delta.content) {
      content += delta.content;
      const visible = visiblePrefix(content, options.lenient);
      if (visible.length > emitted) {
        options.onTextDelta?.(visible.slice(emitted));
        emitted = visible.length;
      }
    }
    delta?.tool_calls?.forEach((fragment, position) => {
      const index = typeof fragment.index === 'number' ? fragment.index : position;
      const call = calls.get(index) ?? { id: undefined, name: undefined, arguments: undefined };
      if (typeof fragment.id === 'string' && fragment.id) call.id = fragment.id;
      if (typeof fragment.function?.name === 'string' && fragment.function.name)
        call.name = fragment.function.name;
      if (fragment.extra_content !== undefined) call.vendorData = { extra_content: fragment.extra_content };
      const piece = fragment.function?.arguments;
      if (typeof piece === 'string')
        call.arguments = `${typeof call.arguments === 'string' ? call.arguments : ''}${piece}`;
      else if (piece !== undefined && piece !== null) call.arguments = piece; // an object, from lenient servers
      calls.set(index, call);
    });
  }
  return assembleOpenAIResponse(
    {
      content,
      toolCalls: [...calls.entries()].sort(([left], [right]) => left - right).map(([, call]) => call),
      finishReason,
      model,
      ...(usage ? { usage } : {}),
    },
    options,
  );
}
