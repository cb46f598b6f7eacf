import type { Logger, Message, ToolDefinition } from '@ai-assistant/chat-types';

/** The most tools one request may carry: OpenAI rejects more than 128; the others get the same cap. */
export const defaultMaxTools = 128;

/** Lower-cased words, and two-character pieces of CJK text (which has no spaces between words). */
function terms(text: string): Set<string> {
  const found = new Set<string>();
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (!word) continue;
    if (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(word)) {
      for (let index = 0; index + 2 <= word.length; index++) found.add(word.slice(index, index + 2));
    } else if (word.length > 2) found.add(word);
  }
  return found;
}

/**
 * At most `limit` tools for one request: those whose name and description share the most words with
 * the person's latest message, ties kept in the order given (the servers' own order). The chosen tools
 * keep that order. Returns the tools unchanged when they fit.
 */
export function selectTools(
  tools: ToolDefinition[],
  messages: Message[],
  limit: number,
): { tools: ToolDefinition[]; left: string[] } {
  if (tools.length <= limit) return { tools, left: [] };
  const question = terms([...messages].reverse().find((message) => message.role === 'user')?.content ?? '');
  const scored = tools.map((tool, index) => {
    const own = terms(`${tool.name.replace(/_/g, ' ')} ${tool.description}`);
    let score = 0;
    for (const term of question) if (own.has(term)) score++;
    return { tool, index, score };
  });
  const kept = new Set(
    [...scored]
      .sort((left, right) => right.score - left.score || left.index - right.index)
      .slice(0, limit)
      .map((entry) => entry.index),
  );
  return {
    tools: scored.filter((entry) => kept.has(entry.index)).map((entry) => entry.tool),
    left: scored.filter((entry) => !kept.has(entry.index)).map((entry) => entry.tool.name),
  };
}

/** {@link selectTools}, logging what was left out. */
export function selectToolsLogged(
  tools: ToolDefinition[],
  messages: Message[],
  limit: number,
  provider: string,
  logger: Logger | undefined,
): ToolDefinition[] {
  const selection = selectTools(tools, messages, limit);
  if (selection.left.length > 0) {
    logger?.warn(
      {
        provider,
        offered: tools.length,
        limit,
        leftOut: selection.left.length,
        tools: selection.left.slice(0, 20),
      },
      `more tools than the provider accepts: sent the ${limit} most relevant, left out ${selection.left.length}`,
    );
  }
  return selection.tools;
}
