import type { ConversationSource, PersonRef } from '@ai-assistant/assistant';
import type { Logger } from '@ai-assistant/host-core';
import type { ConversationMessage, Store } from '@ai-assistant/store';
import { type App, webApi } from '@slack/bolt';
import { boltLogger } from './bolt-logger.js';
import { conversationSource, type TurnPlace } from './conversation-source.js';
import { unknownWorkspace } from './people.js';
import {
  type BotIdentity,
  isFromBot,
  type RecordedTurn,
  readThread,
  type SlackMessage,
} from './thread-history.js';

type WebClient = App['client'];

/** A message of a thread as the listeners see it. */
export interface ThreadMessage {
  team?: string | undefined;
  channel: string;
  threadTs: string;
  ts: string;
  user?: string | undefined;
  text: string;
}

/** What one answer's turn needs to know of its question. */
export interface RecordedQuestion {
  team?: string | undefined;
  channel: string;
  threadTs: string;
  messageTs: string;
  user?: string | undefined;
  client?: WebClient | undefined;
  bot?: BotIdentity | undefined;
}

/** A Slack ts (seconds with microseconds) as a time. */
export const timeOfTs = (ts: string) => new Date(Math.round(Number(ts) * 1000));

const answerPrefix = 'answer:';

/**
 * The threads the bot takes part in, kept in the store's conversation log: Slack's
 * thread keys (`<channel>:<thread ts>`) and message ts become the log's keys. People's messages are
 * recorded as their events arrive, the final answers as the model gives them; an answer's history is
 * read from the log. Slack is asked only for what the bot never saw — a thread's earlier messages when it
 * is first mentioned there — and a 429 on that read answers with what is recorded instead of waiting.
 */
export class ThreadRecorder {
  /** Per workspace: no history read before this time (Slack's Retry-After). */
  private readonly notBefore = new Map<string, number>();
  private readonly readers = new Map<string, WebClient>();

  constructor(
    private readonly log: Store['conversations'],
    private readonly options: {
      client: WebClient;
      bot: () => BotIdentity;
      logger: Logger;
      now?: () => Date;
      /** Days messages are kept (`CONVERSATION_RETENTION_DAYS`), as the conversations resource tells. */
      retentionDays?: number;
    },
  ) {}

  /** The log's workspace of an event: its team, as `personOf` names it. */
  private workspaceOf(team: string | undefined): string {
    return team ?? unknownWorkspace;
  }

  /** One asker's recorded conversations, for the host's conversation tool, prompt and resource. */
  sourceFor(person: PersonRef, place: TurnPlace): ConversationSource {
    return conversationSource(this.log, person, place, this.options.retentionDays);
  }

  /** Whether the bot takes part in a thread: the log says, Slack is not asked. */
  async isMember(team: string | undefined, channel: string, threadTs: string): Promise<boolean> {
    return this.log.isMember(this.workspaceOf(team), `${channel}:${threadTs}`);
  }

  /**
   * A question the bot will answer: it now takes part in the thread, and the question is recorded. A
   * thread it joins in the middle owes its earlier messages (read once, by the answer).
   */
  async heard(message: ThreadMessage): Promise<void> {
    const workspace = this.workspaceOf(message.team);
    const thread = `${message.channel}:${message.threadTs}`;
    try {
      await this.log.join(workspace, thread, {
        historyRead: message.threadTs === message.ts,
        at: timeOfTs(message.ts),
      });
      await this.log.record(workspace, thread, this.userMessage(message));
    } catch (error) {
      this.options.logger.warn(
        { channel: message.channel, thread: message.threadTs, error },
        'could not record a question',
      );
    }
  }

  /** A message in a thread the bot takes part in (not one it answers): recorded; false when not its thread. */
  async said(message: ThreadMessage): Promise<boolean> {
    const workspace = this.workspaceOf(message.team);
    const thread = `${message.channel}:${message.threadTs}`;
    if (!(await this.log.isMember(workspace, thread))) return false;
    await this.log.record(workspace, thread, this.userMessage(message));
    return true;
  }

  /** Slack's `message_changed` of a recorded message. */
  async edited(message: ThreadMessage): Promise<boolean> {
    return this.log.edit(
      this.workspaceOf(message.team),
      `${message.channel}:${message.threadTs}`,
      message.ts,
      message.text,
    );
  }

  /** Slack's `message_deleted` of a recorded message. */
  async deleted(team: string | undefined, channel: string, threadTs: string, ts: string): Promise<boolean> {
    return this.log.remove(this.workspaceOf(team), `${channel}:${threadTs}`, ts);
  }

  /** Deletes what was said before `days` ago; returns how many messages. */
  async prune(days: number): Promise<number> {
    const now = (this.options.now ?? (() => new Date()))();
    return this.log.prune(new Date(now.getTime() - days * 86_400_000));
  }

  /** One answer's turn: its history read from the log, its final answer recorded there. */
  turnFor(question: RecordedQuestion): RecordedTurn {
    const workspace = this.workspaceOf(question.team);
    const thread = `${question.channel}:${question.threadTs}`;
    const bot = question.bot ?? this.options.bot();
    return {
      history: async (count) => {
        const membership = await this.log.join(workspace, thread, {
          historyRead: question.threadTs === question.messageTs,
          at: timeOfTs(question.messageTs),
        });
        if (!membership.historyRead) await this.readEarlier(question, workspace, thread, bot, count);
        // Room for the answers and for what came after the question (left out by the history).
        const recorded = await this.log.thread(workspace, thread, count * 2 + 10);
        return recorded.map((message) => asSlackMessage(message, bot));
      },
      answered: async (text, tools) => {
        if (!text.trim()) return;
        await this.log
          .record(workspace, thread, {
            id: `${answerPrefix}${question.messageTs}`,
            role: 'assistant',
            ...(question.user ? { person: question.user } : {}),
            text,
            at: timeOfTs(question.messageTs),
            ...(tools.length > 0 ? { tools } : {}),
          })
          .catch((error: unknown) =>
            this.options.logger.warn({ channel: question.channel, error }, 'could not record an answer'),
          );
      },
    };
  }

  /**
   * The thread's messages before the bot joined, read from Slack once: with a client that does not wait
   * out a 429, so an answer never stalls for Slack's minute; it goes on with what is recorded.
   */
  private async readEarlier(
    question: RecordedQuestion,
    workspace: string,
    thread: string,
    bot: BotIdentity,
    count: number,
  ) {
    const { logger } = this.options;
    const fields = { channel: question.channel, thread: question.threadTs };
    const waitUntil = this.notBefore.get(workspace) ?? 0;
    if (Date.now() < waitUntil) {
      logger.warn(
        { ...fields, retryInSeconds: Math.ceil((waitUntil - Date.now()) / 1000) },
        'thread history not read (Slack’s rate limit); answering with what is recorded',
      );
      return;
    }
    try {
      const read = await readThread(
        this.reader(question.client ?? this.options.client),
        question.channel,
        question.threadTs,
        { endTs: question.messageTs, upToEnd: true },
        count,
      );
      for (const message of read.messages) {
        const recorded = fromSlack(message, bot, question.user);
        if (recorded) await this.log.record(workspace, thread, recorded);
      }
      if (read.rateLimited !== undefined) {
        this.notBefore.set(workspace, Date.now() + read.rateLimited * 1000);
        logger.warn(
          { ...fields, retryAfterSeconds: read.rateLimited, read: read.messages.length },
          'Slack rate-limited the thread history read (429); answering with what is recorded',
        );
        return;
      }
      await this.log.markHistoryRead(workspace, thread);
      logger.debug({ ...fields, read: read.messages.length }, 'thread history read from Slack');
    } catch (error) {
      logger.warn(
        { ...fields, error },
        'could not read the thread’s earlier messages; answering with what is recorded',
      );
    }
  }

  /** A client for history reads with the same token: a 429 is thrown at once, never retried. */
  private reader(client: WebClient): WebClient {
    const key = client.token ?? '';
    const found = this.readers.get(key);
    if (found) return found;
    const reader = new webApi.WebClient(client.token, {
      slackApiUrl: client.slackApiUrl,
      rejectRateLimitedCalls: true,
      retryConfig: { retries: 0 },
      logger: boltLogger(this.options.logger, client.slackApiUrl),
    });
    if (this.readers.size >= 1000) this.readers.clear();
    this.readers.set(key, reader);
    return reader;
  }

  private userMessage(message: ThreadMessage): ConversationMessage {
    return {
      id: message.ts,
      role: 'user',
      ...(message.user ? { person: message.user } : {}),
      text: message.text,
      at: timeOfTs(message.ts),
    };
  }
}

/** A recorded message as the history reads Slack's: answers carry their question's ts and the bot as author. */
function asSlackMessage(message: ConversationMessage, bot: BotIdentity): SlackMessage {
  if (message.role === 'assistant')
    return {
      ts: message.id.startsWith(answerPrefix) ? message.id.slice(answerPrefix.length) : message.id,
      user: bot.userId,
      text: message.text,
      ...(message.tools ? { tools: message.tools } : {}),
    };
  return { ts: message.id, ...(message.person ? { user: message.person } : {}), text: message.text };
}

/** A message read from Slack as the log keeps it: people's and the bot's own; other bots' and events are left. */
function fromSlack(
  message: SlackMessage,
  bot: BotIdentity,
  asker: string | undefined,
): ConversationMessage | undefined {
  if (!message.ts || !message.text) return undefined;
  if (message.subtype && message.subtype !== 'thread_broadcast') return undefined;
  const at = timeOfTs(message.ts);
  if (isFromBot(message, bot))
    return { id: message.ts, role: 'assistant', ...(asker ? { person: asker } : {}), text: message.text, at };
  if (message.bot_id || !message.user) return undefined;
  return { id: message.ts, role: 'user', person: message.user, text: message.text, at };
}
