import type { FakeReply, FakeRequest } from './fake-vendor.js';

interface ChatMessage {
  role: string;
  content: string | null;
}

/** A Chat Completions reply as JSON, or as an SSE stream when the request asked for one. */
export function completion(
  request: FakeRequest,
  reply: { text?: string; toolCall?: { name: string; arguments: unknown } },
): FakeReply {
  const toolCalls = reply.toolCall
    ? [
        {
          id: 'call_weather_1',
          type: 'function',
          function: { name: reply.toolCall.name, arguments: JSON.stringify(reply.toolCall.arguments) },
        },
      ]
    : undefined;
  const finish = toolCalls ? 'tool_calls' : 'stop';
  if (!request.body.stream) {
    return {
      json: {
        id: 'chatcmpl-fake',
        object: 'chat.completion',
        model: 'gpt-fake',
        choices: [
          {
            index: 0,
            finish_reason: finish,
            message: {
              role: 'assistant',
              content: reply.text ?? null,
              ...(toolCalls ? { tool_calls: toolCalls } : {}),
            },
          },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      },
    };
  }
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', model: 'gpt-fake', choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
  const pieces = reply.text ? (reply.text.match(/[\s\S]{1,12}/g) ?? []) : [];
  const body = [
    chunk({ role: 'assistant', content: '' }),
    ...pieces.map((piece) => chunk({ content: piece })),
    ...(toolCalls ? [chunk({ tool_calls: toolCalls.map((call, index) => ({ index, ...call })) })] : []),
    chunk({}, finish),
    // As OpenAI: with stream_options.include_usage, a last chunk with no choices carries the usage.
    ...((request.body.stream_options as { include_usage?: boolean } | undefined)?.include_usage
      ? [
          `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', model: 'gpt-fake', choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } })}\n\n`,
        ]
      : []),
    'data: [DONE]\n\n',
  ].join('');
  return { sse: body };
}

/**
 * A fake model that behaves like a real one with the weather tool: asked about a known place, it
 * calls the tool; given the tool's result, it answers from it; otherwise it chats.
 */
export function weatherModel(request: FakeRequest): FakeReply {
  const messages = (request.body.messages ?? []) as ChatMessage[];
  const tools = (request.body.tools ?? []) as Array<{ function: { name: string } }>;
  const result = [...messages].reverse().find((message) => message.role === 'tool');
  if (result) return completion(request, { text: `**気象庁の予報**によると:\n\n${result.content}` });
  const question = [...messages].reverse().find((message) => message.role === 'user')?.content ?? '';
  const place = ['東京', '大阪', '八丈島'].find((name) => question.includes(name));
  const weatherTool = tools.find((tool) => tool.function.name.endsWith('get_weather'));
  if (place && weatherTool)
    return completion(request, {
      toolCall: { name: weatherTool.function.name, arguments: { location: place } },
    });
  return completion(request, { text: `ツールなしで答えます: ${question}` });
}
