import type { Logger } from '@ai-assistant/host-core';
import type { App } from '@slack/bolt';
import type { Question } from '../../slack/answer.js';
import type { EventDeduper } from '../../slack/event-deduper.js';
import { type BotIdentity, fetchThread, isFromBot, stripMention } from '../../slack/thread-history.js';
import type { WorkQueue } from '../../slack/work-queue.js';

/** What the event listeners need. */
export interface ListenerDependencies {
  bot: () => BotIdentity;
  deduper: EventDeduper;
  queue: WorkQueue;
  answer: (question: Question) => Promise<void>;
  followUps: boolean;
  logger: Logger;
}

interface MessageEventLike {
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

/** Queues a question unless Slack already delivered this event. */
export function enqueue(dependencies: ListenerDependencies, body: unknown, event: MessageEventLike): void {
  const id = eventId(body) ?? `${event.channel}:${event.ts}`;
  if (!dependencies.deduper.firstTime(id)) {
    dependencies.logger.debug({ eventId: id }, 'duplicate event dropped');
    return;
  }
  const text = stripMention(event.text ?? '', dependencies.bot().userId);
  if (!text) return;
  const question: Question = {
    channel: event.channel,
    threadTs: event.thread_ts ?? event.ts,
    messageTs: event.ts,
    text,
  };
  const accepted = dependencies.queue.push(`${question.channel}:${question.threadTs}`, () =>
    dependencies.answer(question),
  );
  if (!accepted) dependencies.logger.warn({ eventId: id }, 'shutting down; event not answered');
}

/** `app_mention` in channels: answer in the mention's thread. */
export function onAppMention(dependencies: ListenerDependencies) {
  return async ({ event, body }: { event: MessageEventLike; body: unknown }) => {
    if (event.bot_id || (event.subtype && event.subtype !== 'thread_broadcast')) return;
    enqueue(dependencies, body, event);
  };
}

/**
 * `message`: direct messages, and (when enabled) follow-ups in a thread the bot already takes part
 * in. Mentions are left to `app_mention`; bots, edits and deletions are ignored.
 */
export function onMessage(dependencies: ListenerDependencies, client: App['client']) {
  return async ({ event, body }: { event: MessageEventLike; body: unknown }) => {
    if (event.subtype || event.bot_id || !event.user) return;
    const bot = dependencies.bot();
    if (event.user === bot.userId) return;
    if (event.channel_type === 'im') {
      enqueue(dependencies, body, event);
      return;
    }
    if (!dependencies.followUps || !event.thread_ts || event.thread_ts === event.ts) return;
    if ((event.text ?? '').includes(`<@${bot.userId}>`)) return; // app_mention answers this one
    try {
      const thread = await fetchThread(client, event.channel, event.thread_ts);
      const involved = thread.some(
        (message) => isFromBot(message, bot) || (message.text ?? '').includes(`<@${bot.userId}>`),
      );
      if (involved) enqueue(dependencies, body, event);
    } catch (error) {
      dependencies.logger.warn({ channel: event.channel, error }, 'could not read the thread of a follow-up');
    }
  };
}

/** Registers the event listeners on the app. */
export function register(app: App, dependencies: ListenerDependencies): void {
  app.event('app_mention', onAppMention(dependencies) as never);
  app.event('message', onMessage(dependencies, app.client) as never);
}
