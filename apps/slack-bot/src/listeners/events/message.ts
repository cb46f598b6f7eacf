import type { AllMiddlewareArgs, App, SlackEventMiddlewareArgs } from '@slack/bolt';
import { botTookPart } from '../../slack/thread-history.js';
import { botFor, enqueue, type ListenerDependencies, messageFields } from './enqueue.js';

/**
 * `message`: direct messages, and (when enabled) follow-ups in a thread the bot already takes part
 * in. Mentions are left to `app_mention`; bots, edits and deletions are ignored.
 */
export function onMessage(dependencies: ListenerDependencies) {
  return async ({
    event: raw,
    body,
    client,
    context,
  }: SlackEventMiddlewareArgs<'message'> & AllMiddlewareArgs) => {
    const event = messageFields(raw);
    if (event.subtype || event.bot_id || !event.user) return;
    const bot = botFor(dependencies, context);
    if (event.user === bot.userId) return;
    if (event.channel_type === 'im') {
      await enqueue(dependencies, { body, client, context }, event);
      return;
    }
    if (!dependencies.followUps || !event.thread_ts || event.thread_ts === event.ts) return;
    if ((event.text ?? '').includes(`<@${bot.userId}>`)) return; // app_mention answers this one
    try {
      // Remembered threads cost nothing; otherwise one call reads the parent and who replied.
      const known = dependencies.threads.has(event.channel, event.thread_ts);
      if (known || (await botTookPart(client, event.channel, event.thread_ts, bot))) {
        dependencies.threads.remember(event.channel, event.thread_ts);
        await enqueue(dependencies, { body, client, context }, event);
      }
    } catch (error) {
      dependencies.logger.warn({ channel: event.channel, error }, 'could not read the thread of a follow-up');
    }
  };
}

/** Registers the `message` listener. */
export function register(app: App, dependencies: ListenerDependencies): void {
  app.event('message', onMessage(dependencies));
}
