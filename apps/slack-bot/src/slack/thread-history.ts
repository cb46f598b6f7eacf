import { AsyncLocalStorage } from 'node:async_hooks';
import { HostError, type Message } from '@ai-assistant/host-core';
import type { App } from '@slack/bolt';

type WebClient = App['client'];

/** A message as Slack's Web API gives it (the fields the history reads). */
export interface SlackMessage {
  ts?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  subtype?: string;
  /** Not Slack's: the tools the bot's recorded answer used (from the conversation log). */
  tools?: string[];
}

/** Who the bot is, to tell its messages and mentions apart. */
export interface BotIdentity {
  userId: string;
  botId?: string;
}

/** The bot's identity in the event's workspace, from Bolt's authorization (absent: the app's one bot). */
export function botOf(context: { botUserId?: string | undefined; botId?: string | undefined }): {
  bot?: BotIdentity;
} {
  return context.botUserId
    ? { bot: { userId: context.botUserId, ...(context.botId ? { botId: context.botId } : {}) } }
    : {};
}

/** Removes mentions of the bot (with the spaces after them) and trims; line breaks stay. */
export function stripMention(text: string, botUserId: string): string {
  return text.replaceAll(new RegExp(`<@${botUserId}>[ \\t\u3000]*`, 'g'), '').trim();
}

const pageSize = 200;
const maxPages = 5;

/** An answer's turn, when the bot records its threads: where the thread so far comes from. */
export interface RecordedTurn {
  /** The thread so far as Slack messages (the bot's answers as the bot's), oldest first. */
  history(count: number): Promise<SlackMessage[]>;
  /** The model's final answer (recorded as the bot's, never its tool steps). */
  answered?(text: string, tools: string[]): Promise<void>;
}

const recordedTurns = new AsyncLocalStorage<RecordedTurn>();

/** Runs one answer with its thread read from what the bot recorded instead of from Slack. */
export function withRecordedTurn<T>(turn: RecordedTurn, run: () => Promise<T>): Promise<T> {
  return recordedTurns.run(turn, run);
}

/** The recorded turn the current answer runs in, if any. */
export function currentTurn(): RecordedTurn | undefined {
  return recordedTurns.getStore();
}

/** Slack refused a read for its rate limit; `retryAfterSeconds` is its Retry-After. */
export class HistoryRateLimited extends HostError {
  constructor(readonly retryAfterSeconds: number) {
    super('HISTORY_RATE_LIMITED', `Slack rate-limited the thread read (retry after ${retryAfterSeconds} s)`);
  }
}

/** A Web API error that is Slack's 429 (a client that rejects rate-limited calls throws it at once). */
function rateLimitOf(error: unknown): number | undefined {
  const { code, retryAfter } = error as { code?: unknown; retryAfter?: unknown };
  return code === 'slack_webapi_rate_limited_error' ? Number(retryAfter ?? 60) : undefined;
}

/** Up to `maxPages` pages of conversations.replies with the given bounds, oldest first. */
async function readReplies(
  client: WebClient,
  request: { channel: string; ts: string; oldest?: string; latest?: string },
): Promise<{ messages: SlackMessage[]; complete: boolean }> {
  const messages: SlackMessage[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const response = await client.conversations.replies({
      ...request,
      ...(request.oldest || request.latest ? { inclusive: true } : {}),
      limit: pageSize,
      ...(cursor ? { cursor } : {}),
    });
    messages.push(...((response.messages ?? []) as SlackMessage[]));
    cursor = response.response_metadata?.next_cursor || undefined;
    if (!cursor) return { messages, complete: true };
  }
  return { messages, complete: false };
}

/**
 * The messages of a thread the history needs: the last `count` before `endTs`, and (unless `upToEnd`)
 * everything after it. A short thread is one call. A long one is read backwards in time windows ending
 * at `endTs` (widened until `count` earlier messages are in, narrowed when a window is more than a few
 * pages), so a 5 000-message thread costs a handful of calls, not 26. A read Slack refuses for its rate
 * limit ends the reading: what was read so far comes back, with the Retry-After.
 */
export async function readThread(
  client: WebClient,
  channel: string,
  threadTs: string,
  end: { endTs: string; upToEnd: boolean },
  count: number,
): Promise<{ messages: SlackMessage[]; rateLimited?: number }> {
  const bound = end.upToEnd ? { latest: end.endTs } : {};
  let best: SlackMessage[] = [];
  try {
    const first = await client.conversations.replies({
      channel,
      ts: threadTs,
      ...bound,
      ...(end.upToEnd ? { inclusive: true } : {}),
      limit: pageSize,
    });
    best = (first.messages ?? []) as SlackMessage[];
    if (!first.response_metadata?.next_cursor) return { messages: best };
    const before = Number(end.endTs);
    const earlier = (messages: SlackMessage[]) =>
      messages.filter((message) => Number(message.ts) < before).length;
    let windowSeconds = 120;
    for (let attempt = 0; attempt < 8; attempt++) {
      const oldest = Math.max(Number(threadTs), before - windowSeconds);
      const read = await readReplies(client, { channel, ts: threadTs, oldest: oldest.toFixed(6), ...bound });
      if (!read.complete) {
        windowSeconds /= 8; // too many in this window for a few pages: look at a shorter stretch
        continue;
      }
      best = read.messages;
      if (earlier(read.messages) >= count || oldest === Number(threadTs)) break;
      windowSeconds *= 8;
    }
    return { messages: best };
  } catch (error) {
    const retryAfter = rateLimitOf(error);
    if (retryAfter === undefined) throw error;
    return { messages: best, rateLimited: retryAfter };
  }
}

/**
 * The messages of a thread the history needs. In an answer's recorded turn (the bot records its
 * threads), the thread so far as recorded, without asking Slack; otherwise read from Slack.
 */
export async function fetchRecent(
  client: WebClient,
  channel: string,
  threadTs: string,
  beforeTs: string,
  count: number,
): Promise<SlackMessage[]> {
  const turn = recordedTurns.getStore();
  if (turn) return turn.history(count);
  const read = await readThread(client, channel, threadTs, { endTs: beforeTs, upToEnd: false }, count);
  if (read.rateLimited !== undefined) throw new HistoryRateLimited(read.rateLimited);
  return read.messages;
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
