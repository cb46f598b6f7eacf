import type { FakeReply } from './fake-vendor.js';

type Json = Record<string, unknown>;

function openAIError(message: string, param: string | null): FakeReply {
  return { status: 400, json: { error: { message, type: 'invalid_request_error', param, code: null } } };
}

function anthropicError(message: string): FakeReply {
  return { status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message } } };
}

/** Models that take only the default temperature and only `max_completion_tokens` (gpt-5, o-series). */
const reasoningModel = /^(gpt-5|o\d)/;

/** The rules OpenAI's Chat Completions endpoint enforces that our adapters could break. */
function openAIRules(body: Json): FakeReply | undefined {
  const messages = (body.messages ?? []) as Json[];
  const tools = body.tools as unknown[] | undefined;
  if (body.tool_choice !== undefined && !tools?.length)
    return openAIError(
      "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
      'tool_choice',
    );
  const model = String(body.model ?? '');
  if (reasoningModel.test(model)) {
    if (body.max_tokens !== undefined)
      return openAIError(
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        'max_tokens',
      );
    if (body.temperature !== undefined && body.temperature !== 1)
      return openAIError(
        `Unsupported value: 'temperature' does not support ${body.temperature} with this model. Only the default (1) value is supported.`,
        'temperature',
      );
  }
  for (const [index, message] of messages.entries()) {
    const parts = Array.isArray(message.content) ? (message.content as Json[]) : [];
    for (const part of parts.filter((entry) => entry.type === 'image_url')) {
      if (message.role !== 'user')
        return openAIError(
          `Invalid 'messages[${index}]'. Image URLs are only allowed for messages with role 'user', but this message with role '${String(message.role)}' contains an image URL.`,
          `messages.[${index}].content`,
        );
      const url = String((part.image_url as Json | undefined)?.url ?? '');
      if (
        !/^https:\/\//.test(url) &&
        !/^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}$/.test(url)
      )
        return openAIError(
          'Invalid image URL: the URL must be https:// or a base64 data URL of a PNG, JPEG, GIF or WEBP image.',
          `messages.[${index}].content`,
        );
    }
  }
  let open: Set<string> = new Set();
  for (const [index, message] of messages.entries()) {
    if (message.role === 'tool') {
      if (!open.delete(String(message.tool_call_id)))
        return openAIError(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${index}].role`,
        );
      continue;
    }
    if (open.size > 0)
      return openAIError(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'.",
        'messages',
      );
    const calls = (message.tool_calls ?? []) as Json[];
    open = new Set(calls.map((call) => String(call.id)));
  }
  return undefined;
}

/**
 * Google's OpenAI-compatible endpoint for Gemini 3: in the current turn (after the last user message),
 * the first function call of each model step must come back with the `extra_content.google.thought_signature`
 * the model sent with it, or the request fails with INVALID_ARGUMENT.
 */
function geminiRules(body: Json): FakeReply | undefined {
  if (!/^gemini-3/.test(String(body.model ?? ''))) return undefined;
  const messages = (body.messages ?? []) as Json[];
  const lastUser = messages.map((message) => message.role).lastIndexOf('user');
  for (const [index, message] of messages.entries()) {
    if (index < lastUser || message.role !== 'assistant') continue;
    const first = ((message.tool_calls ?? []) as Json[])[0];
    if (!first) continue;
    const google = ((first.extra_content ?? {}) as Json).google as Json | undefined;
    if (typeof google?.thought_signature !== 'string' || google.thought_signature === '')
      return {
        status: 400,
        json: [
          {
            error: {
              code: 400,
              message: `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${String((first.function as Json | undefined)?.name)}\` , position ${index}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
              status: 'INVALID_ARGUMENT',
            },
          },
        ],
      };
  }
  return undefined;
}

/** The rules Anthropic's Messages endpoint enforces that our adapters could break. */
function anthropicRules(body: Json): FakeReply | undefined {
  if (typeof body.max_tokens !== 'number') return anthropicError('max_tokens: Field required');
  const messages = (body.messages ?? []) as Json[];
  const tools = body.tools as unknown[] | undefined;
  const blocks = (message: Json) => (Array.isArray(message.content) ? (message.content as Json[]) : []);
  const usesTools = messages.some((message) =>
    blocks(message).some((block) => block.type === 'tool_use' || block.type === 'tool_result'),
  );
  if (usesTools && !tools?.length)
    return anthropicError('Requests which include `tool_use` or `tool_result` blocks must define tools.');
  if (body.tool_choice !== undefined && !tools?.length)
    return anthropicError('tool_choice may only be specified while providing tools.');
  const imageTypes = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
  for (const [index, message] of messages.entries()) {
    // Images stand in user content or in a tool result's content, as base64 of a known type.
    const nested = blocks(message).flatMap((block) =>
      block.type === 'tool_result' && Array.isArray(block.content) ? (block.content as Json[]) : [block],
    );
    for (const image of nested.filter((block) => block.type === 'image')) {
      const source = (image.source ?? {}) as Json;
      if (message.role !== 'user')
        return anthropicError(`messages.${index}: image content is only allowed in user turns`);
      if (source.type === 'base64' && !imageTypes.has(String(source.media_type)))
        return anthropicError(
          `messages.${index}.content.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`,
        );
      if (source.type === 'base64' && !/^[A-Za-z0-9+/]+={0,2}$/.test(String(source.data ?? '')))
        return anthropicError(`messages.${index}.content.source.base64.data: invalid base64 data`);
    }
    if (index > 0 && messages[index - 1]?.role === message.role)
      return anthropicError(
        `messages: roles must alternate between "user" and "assistant" (message ${index})`,
      );
    const results = blocks(message).filter((block) => block.type === 'tool_result');
    if (results.length === 0) continue;
    const previous = messages[index - 1];
    const ids = new Set(
      previous
        ? blocks(previous)
            .filter((b) => b.type === 'tool_use')
            .map((b) => String(b.id))
        : [],
    );
    const stray = results.find((block) => !ids.has(String(block.tool_use_id)));
    if (stray)
      return anthropicError(
        `messages.${index}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(stray.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
      );
  }
  return undefined;
}

/** A 400 in the vendor's own shape when a request breaks a rule of the endpoint it was sent to. */
export function checkVendorRules(path: string, body: Json): FakeReply | undefined {
  if (/\/messages(\?|$)/.test(path)) return anthropicRules(body);
  if (/\/chat\/completions(\?|$)/.test(path)) return openAIRules(body) ?? geminiRules(body);
  return undefined;
}
