import type { Message } from '@ai-assistant/host-core';
import type { App } from '@slack/bolt';

type WebClient = App['client'];

interface SlackMessage {
  ts?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  subtype?: string;
}

/** Who the bot is, to tell its messages and mentions apart. */
export interface BotIdentity {
  userId: string;
  botId?: string;
}

/** Removes mentions of the bot and tidies the text. */
export function stripMention(text: string, botUserId: string): string {
  return text.replaceAll(`<@${botUserId}>`, '').replace(/\s+/g, ' ').trim();
}

/** Every message of a thread, oldest first (conversations.replies, all pages). */
export async function fetchThread(
  client: WebClient,
  channel: string,
  threadTs: string,
): Promise<SlackMessage[]> {
  const messages: SlackMessage[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page++) {
    const response = await client.conversations.replies({
      channel,
      ts: threadTs,
      limit: 200,
      ...(cursor ? { cursor } : {}),
    });
    messages.push(...((response.messages ?? []) as SlackMessage[]));
    cursor = response.response_metadata?.next_cursor || undefined;
    if (!cursor) break;
  }
  return messages;
}

/** Whether a message was written by this bot. */
export function isFromBot(message: SlackMessage, bot: BotIdentity): boolean {
  return message.user === bot.userId || (bot.botId !== undefined && message.bot_id === bot.botId);
}

/**
 * The thread as conversation history for the model: the bot's messages as `assistant`, everyone
 * else's as `user` (prefixed with the speaker when several people talk), mentions stripped, the most
 * recent `limit` kept. Left out: the message being answered, people's messages after it (they are
 * answered later, in order), and `skipTs` (our own placeholder). The bot's answers to earlier
 * questions stay even when they were posted after the question being answered.
 */
export function threadToHistory(
  thread: SlackMessage[],
  bot: BotIdentity,
  answeringTs: string,
  limit: number,
  skipTs: string[] = [],
): Message[] {
  const relevant = thread
    .filter(
      (message) =>
        message.ts !== undefined &&
        message.text &&
        message.ts !== answeringTs &&
        !skipTs.includes(message.ts),
    )
    .filter((message) => isFromBot(message, bot) || Number(message.ts) < Number(answeringTs))
    .sort((left, right) => Number(left.ts) - Number(right.ts));
  const people = new Set(
    relevant.filter((message) => !isFromBot(message, bot) && !message.bot_id).map((message) => message.user),
  );
  const history = relevant.flatMap((message): Message[] => {
    const text = stripMention(message.text ?? '', bot.userId);
    if (!text) return [];
    if (isFromBot(message, bot)) return [{ role: 'assistant', content: text }];
    if (message.bot_id) return [];
    return [
      { role: 'user', content: people.size > 1 && message.user ? `<@${message.user}>: ${text}` : text },
    ];
  });
  return history.slice(-limit);
}
