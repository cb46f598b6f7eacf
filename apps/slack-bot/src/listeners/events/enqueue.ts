import type { Logger } from '@ai-assistant/host-core';
import type { Question } from '../../slack/answer.js';
import type { EventDeduper } from '../../slack/event-deduper.js';
import { type BotIdentity, stripMention } from '../../slack/thread-history.js';
import type { ThreadMemory } from '../../slack/thread-memory.js';

/** What the event listeners need. */
export interface ListenerDependencies {
  bot: () => BotIdentity;
  deduper: EventDeduper;
  /** Threads the bot takes part in. */
  threads: ThreadMemory;
  /** Says at once that the bot heard, and queues the answer; false when shutting down. */
  accept: (question: Question) => boolean;
  followUps: boolean;
  logger: Logger;
}

/** The fields of a mention or message event the listeners read. */
export interface MessageEventLike {
  type: string;
  subtype?: string;
  channel: string;
  channel_type?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts: string;
  thread_ts?: string;
}

function eventId(body: unknown): string | undefined {
  return (body as { event_id?: string }).event_id;
}

function teamId(body: unknown): string | undefined {
  const team = (body as { team_id?: unknown }).team_id;
  return typeof team === 'string' ? team : undefined;
}

/** Queues a question unless Slack already delivered this event. */
export function enqueue(
  dependencies: ListenerDependencies,
  body: unknown,
  event: MessageEventLike,
  extra: Pick<Question, 'surface'> = {},
): boolean {
  const id = eventId(body) ?? `${event.channel}:${event.ts}`;
  if (!dependencies.deduper.firstTime(id)) {
    dependencies.logger.debug({ eventId: id }, 'duplicate event dropped');
    return false;
  }
  const text = stripMention(event.text ?? '', dependencies.bot().userId);
  if (!text) return false;
  const question: Question = {
    channel: event.channel,
    threadTs: event.thread_ts ?? event.ts,
    messageTs: event.ts,
    text,
    ...(event.user ? { user: event.user } : {}),
    ...(teamId(body) ? { team: teamId(body) } : {}),
    ...extra,
  };
  if (dependencies.accept(question)) return true;
  dependencies.logger.warn({ eventId: id }, 'shutting down; event not answered');
  return false;
}

/** Reads a Slack event (of any message subtype) as the fields the listeners use. */
export function messageFields(event: object): MessageEventLike {
  const field = (name: string) => {
    const value = (event as Record<string, unknown>)[name];
    return typeof value === 'string' ? value : undefined;
  };
  return {
    type: field('type') ?? '',
    channel: field('channel') ?? '',
    ts: field('ts') ?? '',
    ...(field('subtype') ? { subtype: field('subtype') } : {}),
    ...(field('channel_type') ? { channel_type: field('channel_type') } : {}),
    ...(field('user') ? { user: field('user') } : {}),
    ...(field('bot_id') ? { bot_id: field('bot_id') } : {}),
    ...(field('text') !== undefined ? { text: field('text') } : {}),
    ...(field('thread_ts') ? { thread_ts: field('thread_ts') } : {}),
  };
}
