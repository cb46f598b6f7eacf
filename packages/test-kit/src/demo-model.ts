import type { FakeReply, FakeRequest } from './fake-vendor.js';
import { completion } from './weather-model.js';

interface ChatMessage {
  role: string;
  content: string | null;
}

/**
 * A scripted model for trying the bot without an account: it calls whichever tool the person names
 * (`call <tool> {json}`: the tool's own name, `server/tool`, or its full name), the weather tool for a
 * question about 東京, 大阪 or 八丈島, and otherwise says which tools it was offered. Given a tool's
 * result, it answers with it.
 */
export function demoModel(request: FakeRequest): FakeReply {
  const messages = (request.body.messages ?? []) as ChatMessage[];
  const tools = ((request.body.tools ?? []) as Array<{ function: { name: string } }>).map(
    (tool) => tool.function.name,
  );
  const last = messages.at(-1);
  if (last?.role === 'tool')
    return completion(request, { text: `ツールの結果 / the tool's result:\n\n${last.content}` });
  const question = [...messages].reverse().find((message) => message.role === 'user')?.content ?? '';
  const named = /\bcall\s+([\w./-]+)\s*(\{[\s\S]*\})?/i.exec(question);
  if (named) {
    const wanted = (named[1] as string).replace('/', '__');
    const tool = tools.find((name) => name === wanted || name.endsWith(`__${wanted}`));
    if (!tool)
      return completion(request, {
        text: `No tool ${named[1]} is offered to me. Offered: ${tools.join(', ') || 'none'}`,
      });
    let args: unknown = {};
    try {
      args = named[2] ? JSON.parse(named[2]) : {};
    } catch {
      return completion(request, { text: `The arguments are not JSON: ${named[2]}` });
    }
    return completion(request, { toolCall: { name: tool, arguments: args } });
  }
  const place = ['東京', '大阪', '八丈島'].find((name) => question.includes(name));
  const weather = tools.find((name) => name.endsWith('get_weather'));
  if (place && weather)
    return completion(request, { toolCall: { name: weather, arguments: { location: place } } });
  return completion(request, {
    text: `(demo model) Ask about 東京の天気, or name a tool: call <tool> {"argument": "value"}. Tools offered to me: ${tools.join(', ') || 'none'}`,
  });
}
