import type { Logger } from '@ai-assistant/host-core';
import type { AllMiddlewareArgs } from '@slack/bolt';
import type { Question } from '../../slack/answer.js';
import type { SlackFile } from '../../slack/attachments.js';
import type { EventClaims } from '../../slack/replicas.js';
import { type BotIdentity, botOf, stripMention } from '../../slack/thread-history.js';
import type { ThreadMemory } from '../../slack/thread-memory.js';
import type { ThreadRecorder } from '../../slack/thread-recorder.js';

/** What the event listeners need. */
export interface ListenerDependencies {
  /** The app's bot when Bolt's authorization does not name one. */
  bot: () => BotIdentity;
  /** Which replica answers an event (its claim in the store). */
  claims: EventClaims;
  /** Threads the bot takes part in (this process's cache of the recorder's membership). */
  threads: ThreadMemory;
  /** The threads' conversations: membership, people's messages, edits and deletions. */
  conversations: ThreadRecorder;
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
  /** Files attached to the message (a `file_share` message, or a mention with files). */
  files?: SlackFile[];
}

function eventId(body: unknown): string | undefined {
  return (body as { event_id?: string }).event_id;
}

function teamId(body: unknown): string | undefined {
  const team = (body as { team_id?: unknown }).team_id;
  return typeof team === 'string' ? team : undefined;
}

/** The bot of the event's workspace: Bolt's authorization, else the app's one bot. */
export function botFor(
  dependencies: ListenerDependencies,
  context: AllMiddlewareArgs['context'],
): BotIdentity {
  return botOf(context).bot ?? dependencies.bot();
}

/**
 * Queues a question unless Slack already delivered this event (to this replica or another): the
 * claim is made before anything is posted.
 */
export async function enqueue(
  dependencies: ListenerDependencies,
  args: { body: unknown; client: AllMiddlewareArgs['client']; context: AllMiddlewareArgs['context'] },
  event: MessageEventLike,
  extra: Pick<Question, 'surface'> = {},
): Promise<boolean> {
  const { body } = args;
  const bot = botFor(dependencies, args.context);
  const said = stripMention(event.text ?? '', bot.userId);
  const files = event.files ?? [];
  if (!said && files.length === 0) return false;
  // A message of files alone still asks something: about them.
  const text = said || '（ファイルを添付しました）';
  const id = eventId(body) ?? `${event.channel}:${event.ts}`;
  const question: Question = {
    eventId: id,
    client: args.client,
    bot,
    channel: event.channel,
    threadTs: event.thread_ts ?? event.ts,
    messageTs: event.ts,
    text,
    ...(event.user ? { user: event.user } : {}),
    ...(teamId(body) ? { team: teamId(body) } : {}),
    ...(files.length > 0 ? { files } : {}),
    ...extra,
  };
  if (!(await dependencies.claims.claim({ ...question, eventId: id }))) {
    dependencies.logger.debug({ eventId: id }, 'duplicate event dropped');
    return false;
  }
  // Recorded before it is queued: its answer reads the thread from the log.
  await dependencies.conversations.heard({
    team: question.team,
    channel: question.channel,
    threadTs: question.threadTs,
    ts: question.messageTs,
    user: question.user,
    text: question.text,
  });
  if (dependencies.accept(question)) return true;
  await dependencies.claims.unclaim({ ...question, eventId: id });
  dependencies.logger.warn({ eventId: id }, 'shutting down; event left to another replica');
  return false;
}

/** Reads a Slack event (of any message subtype) as the fields the listeners use. */
export function messageFields(event: object): MessageEventLike {
  const field = (name: string) => {
    const value = (event as Record<string, unknown>)[name];
    return typeof value === 'string' ? value : undefined;
  };
  const files = (event as { files?: unknown }).files;
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
    ...(Array.isArray(files) && files.length > 0
      ? { files: files.filter((file): file is SlackFile => typeof file === 'object' && file !== null) }
      : {}),
  };
}
