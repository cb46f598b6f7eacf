import type { AllMiddlewareArgs, App, SlackEventMiddlewareArgs } from '@slack/bolt';
import { stripMention } from '../../slack/thread-history.js';
import { botFor, enqueue, type ListenerDependencies, messageFields } from './enqueue.js';

function teamOf(body: unknown): string | undefined {
  const team = (body as { team_id?: unknown }).team_id;
  return typeof team === 'string' ? team : undefined;
}

/** The edited or deleted message a `message_changed` / `message_deleted` event names. */
function changedMessage(event: object): { ts?: string; thread_ts?: string; text?: string; user?: string } {
  const fields = event as {
    message?: { ts?: string; thread_ts?: string; text?: string; user?: string };
    previous_message?: { ts?: string; thread_ts?: string; user?: string };
    deleted_ts?: string;
  };
  return (
    fields.message ?? { ...fields.previous_message, ...(fields.deleted_ts ? { ts: fields.deleted_ts } : {}) }
  );
}

/**
 * Edits and deletions of people's messages in the bot's threads are applied to what it recorded.
 * Returns whether the event was one.
 */
async function applyChange(
  dependencies: ListenerDependencies,
  raw: object,
  team: string | undefined,
  bot: { userId: string },
): Promise<boolean> {
  const subtype = (raw as { subtype?: string }).subtype;
  if (subtype !== 'message_changed' && subtype !== 'message_deleted') return false;
  const channel = (raw as { channel?: string }).channel ?? '';
  const changed = changedMessage(raw);
  if (!changed.ts || changed.user === bot.userId) return true;
  const threadTs = changed.thread_ts ?? changed.ts;
  try {
    const applied =
      subtype === 'message_changed'
        ? await dependencies.conversations.edited({
            team,
            channel,
            threadTs,
            ts: changed.ts,
            text: stripMention(changed.text ?? '', bot.userId),
          })
        : await dependencies.conversations.deleted(team, channel, threadTs, changed.ts);
    if (applied) dependencies.logger.debug({ channel, subtype }, 'a recorded message changed');
  } catch (error) {
    dependencies.logger.warn({ channel, subtype, error }, 'could not apply a message’s change');
  }
  return true;
}

/**
 * `message`: direct messages, and (when enabled) follow-ups in a thread the bot already takes part
 * in. Mentions are left to `app_mention`; bots are ignored; edits and deletions of recorded messages
 * are applied. Whether a thread is the bot's is in its conversation log: Slack is never asked.
 */
export function onMessage(dependencies: ListenerDependencies) {
  return async ({
    event: raw,
    body,
    client,
    context,
  }: SlackEventMiddlewareArgs<'message'> & AllMiddlewareArgs) => {
    const bot = botFor(dependencies, context);
    const team = teamOf(body) ?? context.teamId ?? undefined;
    if (await applyChange(dependencies, raw, team, bot)) return;
    const event = messageFields(raw);
    // `file_share`: a message with files attached, answered like any other.
    if ((event.subtype && event.subtype !== 'file_share') || event.bot_id || !event.user) return;
    if (event.user === bot.userId) return;
    if (event.channel_type === 'im') {
      await enqueue(dependencies, { body, client, context }, event);
      return;
    }
    if (!event.thread_ts || event.thread_ts === event.ts) return;
    if ((event.text ?? '').includes(`<@${bot.userId}>`)) return; // app_mention answers this one
    try {
      const known =
        dependencies.threads.has(event.channel, event.thread_ts) ||
        (await dependencies.conversations.isMember(team, event.channel, event.thread_ts));
      if (!known) return;
      dependencies.threads.remember(event.channel, event.thread_ts);
      if (dependencies.followUps) await enqueue(dependencies, { body, client, context }, event);
      else
        await dependencies.conversations.said({
          team,
          channel: event.channel,
          threadTs: event.thread_ts,
          ts: event.ts,
          user: event.user,
          text: stripMention(event.text ?? '', bot.userId),
        });
    } catch (error) {
      dependencies.logger.warn({ channel: event.channel, error }, 'could not take a thread’s message');
    }
  };
}

/** Registers the `message` listener. */
export function register(app: App, dependencies: ListenerDependencies): void {
  app.event('message', onMessage(dependencies));
}
