import {
  ConversationRefused,
  type ConversationSource,
  type PastMessage,
  type PersonRef,
} from '@ai-assistant/assistant';
import type { ConversationMessage, Store } from '@ai-assistant/store';

/** Where a turn happens: the channel, and the thread when it is in one. */
export interface TurnPlace {
  channel?: string | undefined;
  threadTs?: string | undefined;
}

/** A thread key of the log (`<channel>:<thread ts>`) as people read it. */
const placeOf = (key: string) => {
  const [channel, threadTs] = key.split(':');
  return `channel ${channel ?? '?'}, thread ${threadTs ?? '?'}`;
};

const past = (message: ConversationMessage): PastMessage => ({
  role: message.role,
  ...(message.person ? { person: message.person } : {}),
  text: message.text,
  at: message.at,
});

/**
 * A message link (`https://…slack.com/archives/C123/p1700000000000100?thread_ts=1700000000.000100`) or
 * a bare thread ts, as a thread key of the log; undefined when it is neither.
 */
export function threadOfReference(ref: string, channel: string | undefined): string | undefined {
  const trimmed = ref.trim().replace(/^<(.*)>$/, '$1');
  const link = /\/archives\/([A-Z0-9]+)\/p(\d{10})(\d{6})(?:[?#&](.*))?$/.exec(trimmed);
  if (link) {
    const [, linkChannel, seconds, micros, query] = link;
    const threadTs = new URLSearchParams(query ?? '').get('thread_ts');
    return `${linkChannel}:${threadTs && /^\d+\.\d+$/.test(threadTs) ? threadTs : `${seconds}.${micros}`}`;
  }
  if (/^\d{9,}\.\d{1,6}$/.test(trimmed) && channel) return `${channel}:${trimmed}`;
  return undefined;
}

/**
 * One asker's conversations in their workspace, from the bot's conversation log, for the host's
 * conversation tool, summary prompt and counts. Only their own messages and the answers given to them
 * are listed; a summary reads a whole thread only when it is in the channel of the turn (so it is said
 * where it was written) and the asker took part in it.
 */
export function conversationSource(
  log: Store['conversations'],
  person: PersonRef,
  place: TurnPlace,
  retentionDays?: number,
): ConversationSource {
  const { workspace, user } = person;
  return {
    async mine({ threads, messagesPerThread }) {
      const conversations = await log.ofPerson(workspace, user, { threads, messagesPerThread });
      return conversations.map((conversation) => ({
        place: placeOf(conversation.thread),
        lastAt: conversation.lastAt,
        messages: conversation.messages.map(past),
      }));
    },
    async thread(ref) {
      let key: string | undefined;
      if (ref) {
        key = threadOfReference(ref, place.channel);
        if (!key)
          throw new ConversationRefused(
            `"${ref.slice(0, 200)}" is not a link to a Slack message (use "Copy link" on a message of the thread).`,
          );
      } else if (place.channel && place.threadTs) key = `${place.channel}:${place.threadTs}`;
      else {
        const latest = (await log.ofPerson(workspace, user, { threads: 50, messagesPerThread: 1 })).find(
          (conversation) => !place.channel || conversation.thread.startsWith(`${place.channel}:`),
        );
        if (!latest)
          throw new ConversationRefused(
            'You have no recorded conversation with the assistant in this channel.',
          );
        key = latest.thread;
      }
      if (place.channel && !key.startsWith(`${place.channel}:`))
        throw new ConversationRefused(
          'That thread is in another channel: run the prompt in that channel, so its summary stays where it was written.',
        );
      const messages = await log.thread(workspace, key, 500);
      if (!messages.some((message) => message.person === user))
        throw new ConversationRefused(
          'You can only summarise a conversation you took part in with the assistant (it records the threads it is in).',
        );
      return { place: placeOf(key), messages: messages.map(past) };
    },
    async counts() {
      const tally = await log.counts(workspace, user);
      return { ...tally, ...(retentionDays !== undefined ? { retentionDays } : {}) };
    },
  };
}
