import type { App, SlackEventMiddlewareArgs } from '@slack/bolt';
import { enqueue, type ListenerDependencies, messageFields } from './enqueue.js';

/** `app_mention` in channels: answer in the mention's thread. */
export function onAppMention(dependencies: ListenerDependencies) {
  return async ({ event: raw, body }: SlackEventMiddlewareArgs<'app_mention'>) => {
    const event = messageFields(raw);
    if (event.bot_id || (event.subtype && event.subtype !== 'thread_broadcast')) return;
    enqueue(dependencies, body, event);
  };
}

/** Registers the `app_mention` listener. */
export function register(app: App, dependencies: ListenerDependencies): void {
  app.event('app_mention', onAppMention(dependencies));
}
