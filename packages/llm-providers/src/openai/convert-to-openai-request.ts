import type { Message, ToolDefinition } from '@ai-assistant/host-core';

/** The Chat Completions request body we send (a subset of the API's). */
export interface OpenAIRequest {
  model: string;
  messages: Array<Record<string, unknown>>;
  tools?: Array<{
    type: 'function';
    function: { name: string; description: string; parameters: Record<string, unknown> };
  }>;
  max_completion_tokens?: number;
  max_tokens?: number;
  temperature?: number;
  stream?: boolean;
  stream_options?: { include_usage: boolean };
}

/** Options of {@link toOpenAIRequest}. */
export interface OpenAIRequestOptions {
  model: string;
  maxTokens?: number;
  temperature?: number;
  stream?: boolean;
  /** Local servers know `max_tokens`, OpenAI's newer models only `max_completion_tokens`. */
  legacyMaxTokens?: boolean;
  /** Ask for a final usage chunk when streaming (OpenAI proper). */
  streamUsage?: boolean;
}

/** Maps neutral messages and tools to a Chat Completions request with function calling. */
export function toOpenAIRequest(
  messages: Message[],
  tools: ToolDefinition[],
  options: OpenAIRequestOptions,
): OpenAIRequest {
  const request: OpenAIRequest = {
    model: options.model,
    messages: messages.map((message) => {
      switch (message.role) {
        case 'assistant':
          return {
            role: 'assistant',
            content: message.content === '' && message.toolCalls?.length ? null : message.content,
            ...(message.toolCalls?.length
              ? {
                  tool_calls: message.toolCalls.map((call) => ({
                    id: call.id,
                    type: 'function',
                    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
                  })),
                }
              : {}),
          };
        case 'tool':
          return { role: 'tool', tool_call_id: message.toolCallId ?? '', content: message.content };
        default:
          return { role: message.role, content: message.content };
      }
    }),
  };
  if (tools.length > 0) {
    request.tools = tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
    }));
  }
  if (options.maxTokens !== undefined) {
    if (options.legacyMaxTokens) request.max_tokens = options.maxTokens;
    else request.max_completion_tokens = options.maxTokens;
  }
  if (options.temperature !== undefined) request.temperature = options.temperature;
  if (options.stream) {
    request.stream = true;
    if (options.streamUsage) request.stream_options = { include_usage: true };
  }
  return request;
}
