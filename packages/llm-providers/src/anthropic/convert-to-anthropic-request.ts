import type { ImageContent, Message, ToolDefinition } from '@ai-assistant/chat-types';
import type Anthropic from '@anthropic-ai/sdk';

type Block =
  | Anthropic.TextBlockParam
  | Anthropic.ImageBlockParam
  | Anthropic.ToolUseBlockParam
  | Anthropic.ToolResultBlockParam;

/** An image as a Messages content block (base64 source). */
function imageBlock(image: ImageContent): Anthropic.ImageBlockParam {
  return {
    type: 'image',
    source: {
      type: 'base64',
      media_type: image.mimeType as 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp',
      data: image.data,
    },
  };
}

/** The Messages request body we send: the SDK's own type, so the compiler checks it. */
export type AnthropicRequest = Anthropic.MessageCreateParams;

/**
 * Maps neutral messages to a Messages request: system messages become `system`; tool results become
 * `tool_result` blocks in a user message (first in it, as the API requires), consecutive results
 * merged; consecutive messages of one role merged so roles alternate.
 */
export function toAnthropicRequest(
  messages: Message[],
  tools: ToolDefinition[],
  options: {
    model: string;
    maxTokens: number;
    temperature?: number;
    stream?: boolean;
    toolChoice?: 'auto' | 'none';
  },
): AnthropicRequest {
  const system = messages
    .filter((message) => message.role === 'system')
    .map((message) => message.content)
    .filter(Boolean)
    .join('\n\n');
  const turns: Array<{ role: 'user' | 'assistant'; content: Block[] }> = [];
  const append = (role: 'user' | 'assistant', blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) {
      // tool_result blocks must lead a user message.
      const results = [...last.content, ...blocks].filter((block) => block.type === 'tool_result');
      const others = [...last.content, ...blocks].filter((block) => block.type !== 'tool_result');
      last.content = [...results, ...others];
    } else {
      turns.push({ role, content: blocks });
    }
  };
  for (const message of messages) {
    if (message.role === 'system') continue;
    if (message.role === 'tool') {
      append('user', [
        {
          type: 'tool_result',
          tool_use_id: message.toolCallId ?? '',
          // A tool's images travel in its result, as Messages allows.
          content: message.images?.length
            ? [{ type: 'text' as const, text: message.content }, ...message.images.map(imageBlock)]
            : message.content,
          ...(message.isError ? { is_error: true } : {}),
        },
      ]);
    } else if (message.role === 'assistant') {
      append('assistant', [
        ...(message.content.trim() ? [{ type: 'text' as const, text: message.content }] : []),
        ...(message.toolCalls ?? []).map((call) => ({
          type: 'tool_use' as const,
          id: call.id,
          name: call.name,
          input: call.arguments,
        })),
      ]);
    } else if (message.content.trim() || message.images?.length) {
      // A person's attached images go with their words.
      append('user', [
        ...(message.content.trim() ? [{ type: 'text' as const, text: message.content }] : []),
        ...(message.images ?? []).map(imageBlock),
      ]);
    }
  }
  return {
    model: options.model,
    max_tokens: options.maxTokens,
    ...(system ? { system } : {}),
    messages: turns,
    ...(tools.length > 0
      ? {
          tools: tools.map((tool) => ({
            name: tool.name,
            description: tool.description,
            // compileToolSchema guarantees an object schema at the top level.
            input_schema: tool.inputSchema as Anthropic.Tool.InputSchema,
          })),
          ...(options.toolChoice === 'none' ? { tool_choice: { type: 'none' as const } } : {}),
        }
      : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    ...(options.stream ? { stream: true as const } : {}),
  };
}
