import type {
  CompletionOptions,
  LLMProvider,
  LLMResponse,
  Message,
  ToolCall,
  ToolDefinition,
  Usage,
} from '@ai-assistant/chat-types';

/** What the provider was sent in one call. */
export interface RecordedCall {
  method: 'complete' | 'completeWithTools';
  messages: Message[];
  tools: ToolDefinition[];
  /** The options it was called with, minus the signal and the stream callback. */
  options?: Pick<CompletionOptions, 'toolChoice' | 'maxTokens' | 'temperature'>;
}

/** One scripted turn: a reply, or a function of what was sent. */
type ScriptedReply = { text?: string; toolCalls?: ToolCall[]; usage?: Usage };
export type ScriptedTurn = ScriptedReply | ((call: RecordedCall) => ScriptedReply | Promise<ScriptedReply>);

/**
 * A provider for tests that plays back scripted turns in order and records every request. When the
 * script runs out it repeats the last turn, so "asks for tools forever" is one turn.
 */
export class ScriptedProvider implements LLMProvider {
  readonly name = 'scripted';
  readonly calls: RecordedCall[] = [];
  private next = 0;

  constructor(private readonly turns: ScriptedTurn[]) {}

  complete(messages: Message[], options?: CompletionOptions): Promise<LLMResponse> {
    return this.play({ method: 'complete', messages: structuredClone(messages), tools: [] }, options);
  }

  completeWithTools(
    messages: Message[],
    tools: ToolDefinition[],
    options?: CompletionOptions,
  ): Promise<LLMResponse> {
    return this.play({ method: 'completeWithTools', messages: structuredClone(messages), tools }, options);
  }

  private async play(call: RecordedCall, options?: CompletionOptions): Promise<LLMResponse> {
    if (options?.toolChoice || options?.maxTokens || options?.temperature !== undefined) {
      const { toolChoice, maxTokens, temperature } = options;
      call.options = {
        ...(toolChoice ? { toolChoice } : {}),
        ...(maxTokens ? { maxTokens } : {}),
        ...(temperature !== undefined ? { temperature } : {}),
      };
    }
    this.calls.push(call);
    const turn = this.turns[Math.min(this.next++, this.turns.length - 1)];
    const reply = typeof turn === 'function' ? await turn(call) : (turn ?? {});
    if (reply.text) options?.onTextDelta?.(reply.text);
    const toolCalls = call.method === 'complete' ? [] : (reply.toolCalls ?? []);
    return {
      content: reply.text ?? '',
      model: 'scripted-1',
      ...(reply.usage ? { usage: reply.usage } : {}),
      toolCalls,
      stopReason: toolCalls.length > 0 ? 'tool_calls' : 'end',
    };
  }
}

/** The content of the last `tool` message answering `callId`. */
export function toolMessage(call: RecordedCall, callId: string): Message | undefined {
  return call.messages.find((message) => message.role === 'tool' && message.toolCallId === callId);
}
