import type { LLMResponse, StopReason } from '@ai-assistant/chat-types';
import { normalizeToolCalls } from '../normalize-tool-calls.js';

/** Maps Anthropic's `stop_reason` to the neutral stop reason. */
export function mapAnthropicStopReason(reason: unknown): StopReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'end';
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
      return 'max_tokens';
    case 'refusal':
      return 'content_filter';
    default:
      return 'other';
  }
}

interface RawMessage {
  model?: unknown;
  content?: Array<{ type?: unknown; text?: unknown; id?: unknown; name?: unknown; input?: unknown }>;
  stop_reason?: unknown;
  usage?: { input_tokens?: number; output_tokens?: number };
}

/** Maps a Messages response to the neutral response: text blocks joined, `tool_use` blocks as calls. */
export function fromAnthropicResponse(body: unknown): LLMResponse {
  const message = body as RawMessage;
  const blocks = message.content ?? [];
  const text = blocks
    .filter((block) => block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text as string)
    .join('');
  const toolCalls = normalizeToolCalls(
    blocks
      .filter((block) => block.type === 'tool_use')
      .map((block) => ({ id: block.id, name: block.name, arguments: block.input ?? {} })),
  );
  return {
    content: text,
    model: typeof message.model === 'string' ? message.model : '',
    ...(message.usage
      ? {
          usage: {
            inputTokens: message.usage.input_tokens ?? 0,
            outputTokens: message.usage.output_tokens ?? 0,
          },
        }
      : {}),
    toolCalls,
    stopReason: mapAnthropicStopReason(message.stop_reason),
  };
}

interface RawEvent {
  type?: string;
  index?: number;
  message?: RawMessage;
  content_block?: { type?: string; text?: string; id?: string; name?: string; input?: unknown };
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: unknown };
  usage?: { output_tokens?: number; input_tokens?: number };
}

/** Accumulates a Messages event stream into a response, reporting text deltas as they arrive. */
export async function collectAnthropicStream(
  events: AsyncIterable<unknown>,
  onTextDelta?: (text: string) => void,
): Promise<LLMResponse> {
  const message: Required<Pick<RawMessage, 'content'>> & RawMessage = { content: [] };
  const partialJson = new Map<number, string>();
  for await (const item of events) {
    const event = item as RawEvent;
    switch (event.type) {
      case 'message_start':
        message.model = event.message?.model;
        message.usage = { ...event.message?.usage };
        break;
      case 'content_block_start':
        message.content[event.index ?? message.content.length] = { ...event.content_block };
        break;
      case 'content_block_delta': {
        const index = event.index ?? 0;
        const block = message.content[index] ?? { type: 'text', text: '' };
        message.content[index] = block;
        if (event.delta?.type === 'text_delta' && event.delta.text) {
          block.text = `${typeof block.text === 'string' ? block.text : ''}${event.delta.text}`;
          onTextDelta?.(event.delta.text);
        } else if (event.delta?.type === 'input_json_delta') {
          partialJson.set(index, `${partialJson.get(index) ?? ''}${event.delta.partial_json ?? ''}`);
        }
        break;
      }
      case 'content_block_stop': {
        const index = event.index ?? 0;
        const json = partialJson.get(index);
        const block = message.content[index];
        if (block && json !== undefined) {
          try {
            block.input = json.trim() ? JSON.parse(json) : {};
          } catch {
            block.input = json; // normalizeToolCalls turns this into an argumentsError
          }
        }
        break;
      }
      case 'message_delta':
        if (event.delta?.stop_reason) message.stop_reason = event.delta.stop_reason;
        if (event.usage?.output_tokens !== undefined) {
          message.usage = { ...message.usage, output_tokens: event.usage.output_tokens };
        }
        break;
    }
  }
  return fromAnthropicResponse(message);
}
