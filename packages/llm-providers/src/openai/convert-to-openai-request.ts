import type { ImageContent, Message, ToolDefinition } from '@ai-assistant/chat-types';
import type {
  ChatCompletionContentPart,
  ChatCompletionCreateParams,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';

/** The Chat Completions request body we send: the SDK's own type, so the compiler checks it. */
export type OpenAIRequest = ChatCompletionCreateParams;

function toOpenAIMessage(message: Message): ChatCompletionMessageParam {
  switch (message.role) {
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content === '' && message.toolCalls?.length ? null : message.content,
        ...(message.toolCalls?.length
          ? {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: JSON.stringify(call.arguments) },
                // Gemini 3 refuses a continued conversation whose calls lost their thought signature.
                ...(call.vendorData?.extra_content !== undefined
                  ? { extra_content: call.vendorData.extra_content }
                  : {}),
              })),
            }
          : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId ?? '', content: message.content };
    case 'system':
      return { role: 'system', content: message.content };
    default:
      // A person's attached images go with their words, as content parts.
      return message.images?.length
        ? {
            role: 'user',
            content: [{ type: 'text', text: message.content }, ...message.images.map(imagePart)],
          }
        : { role: 'user', content: message.content };
  }
}

/** An image as a Chat Completions content part (a data URL). */
function imagePart(image: ImageContent): ChatCompletionContentPart {
  return { type: 'image_url', image_url: { url: `data:${image.mimeType};base64,${image.data}` } };
}

/**
 * Chat Completions takes images in user messages only: the images of a run of tool results follow
 * it as one user message, each named by the call it came from.
 */
function withToolImages(messages: Message[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  let pending: ChatCompletionContentPart[] = [];
  const flush = () => {
    if (pending.length > 0) out.push({ role: 'user', content: pending });
    pending = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool') flush();
    out.push(toOpenAIMessage(message));
    if (message.role === 'tool' && message.images?.length) {
      pending.push({ type: 'text', text: `Images returned by tool call ${message.toolCallId ?? ''}:` });
      for (const image of message.images) pending.push(imagePart(image));
    }
  }
  flush();
  return out;
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
  /** `none`: tools listed, none may be called. */
  toolChoice?: 'auto' | 'none';
}

/** Maps neutral messages and tools to a Chat Completions request with function calling. */
export function toOpenAIRequest(
  messages: Message[],
  tools: ToolDefinition[],
  options: OpenAIRequestOptions,
): OpenAIRequest {
  const request: OpenAIRequest = {
    model: options.model,
    messages: withToolImages(messages),
    ...(options.stream
      ? { stream: true as const, ...(options.streamUsage ? { stream_options: { include_usage: true } } : {}) }
      : {}),
  };
  if (tools.length > 0) {
    request.tools = tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
    }));
    if (options.toolChoice === 'none') request.tool_choice = 'none';
  }
  if (options.maxTokens !== undefined) {
    if (options.legacyMaxTokens) request.max_tokens = options.maxTokens;
    else request.max_completion_tokens = options.maxTokens;
  }
  if (options.temperature !== undefined) request.temperature = options.temperature;
  return request;
}
