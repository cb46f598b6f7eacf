import type { AllMiddlewareArgs, App, SlackEventMiddlewareArgs } from '@slack/bolt';
import { enqueue, type ListenerDependencies, messageFields } from './enqueue.js';

/** `app_mention` in channels: answer in the mention's thread. */
export function onAppMention(dependencies: ListenerDependencies) {
  return async ({
    event: raw,
    body,
    client,
    context,
  }: SlackEventMiddlewareArgs<'app_mention'> & AllMiddlewareArgs) => {
    const event = messageFields(raw);
    const answered = new Set(['thread_broadcast', 'file_share']);
    if (event.bot_id || (event.subtype && !answered.has(event.subtype))) return;
    await enqueue(dependencies, { body, client, context }, event);
  };
}

/** Registers the `app_mention` listener. */
export function register(app: App, dependencies: ListenerDependencies): void {
  app.event('app_mention', onAppMention(dependencies));
}
