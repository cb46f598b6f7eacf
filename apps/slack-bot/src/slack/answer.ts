import { ChatCancelledError, type ChatEvent, type ChatService, type Logger } from '@ai-assistant/host-core';
import { LLMProviderError } from '@ai-assistant/llm-providers';
import type { App } from '@slack/bolt';
import { escapeSlackText, markdownToMrkdwn } from '../format/slack-text.js';
import { splitMessage } from '../format/split-message.js';
import { type BotIdentity, fetchThread, threadToHistory } from './thread-history.js';

type WebClient = App['client'];

/** One question to answer in a Slack thread. */
export interface Question {
  channel: string;
  /** The thread to answer in (the mention itself when it starts a thread). */
  threadTs: string;
  /** The message being answered. */
  messageTs: string;
  text: string;
  /** The person who asked (absent for events without a user). */
  user?: string;
  /** Their workspace (the event's team_id). */
  team?: string;
}

/** What answering needs. */
export interface AnswerDependencies {
  client: WebClient;
  chat: ChatService;
  bot: BotIdentity;
  logger: Logger;
  historyLimit: number;
  streaming: boolean;
}

/** The status line shown while a tool runs: its server's `status_message`, else a neutral line (escaped). */
export function toolStatus(event: Extract<ChatEvent, { type: 'tool_start' }>): string {
  if (event.statusMessage) return escapeSlackText(event.statusMessage);
  return `🔧 \`${escapeSlackText(event.tool ?? event.name)}\` を実行しています…`;
}

/** Plain words for a failure, to post in the thread. Detail goes to the log. */
export function failureText(error: unknown): string {
  if (error instanceof LLMProviderError) {
    switch (error.code) {
      case 'RATE_LIMITED':
        return '⚠️ AI サービスが混み合っています。少し時間をおいてからもう一度お試しください。';
      case 'TIMEOUT':
      case 'CONNECTION':
      case 'SERVER':
        return '⚠️ AI サービスに接続できませんでした。しばらくしてからもう一度お試しください。';
      case 'CONTEXT_TOO_LONG':
        return '⚠️ このスレッドは長すぎて AI が読み切れません。新しいスレッドで質問してください。';
      default:
        return `⚠️ AI サービスがエラーを返しました（${escapeSlackText(error.userMessage)}）`;
    }
  }
  if (error instanceof ChatCancelledError) return '⚠️ 回答を中断しました。';
  return '⚠️ 申し訳ありません、回答の作成中にエラーが起きました。もう一度お試しください。';
}

/**
 * The answer streamed into one Slack message by `client.chatStream()` (chat.startStream, appendStream,
 * stopStream; the library buffers the text). Appends run one after another; the first failure stops
 * streaming and the answer is posted as an ordinary message instead.
 */
class AnswerStream {
  private readonly streamer: ReturnType<WebClient['chatStream']>;
  private pending: Promise<unknown> = Promise.resolve();
  private pushed = false;
  failed = false;

  constructor(
    client: WebClient,
    question: Question,
    private readonly logger: Logger,
  ) {
    this.streamer = client.chatStream({
      channel: question.channel,
      thread_ts: question.threadTs,
      // Slack asks for the recipient when streaming into a channel.
      ...(question.user ? { recipient_user_id: question.user } : {}),
      ...(question.team ? { recipient_team_id: question.team } : {}),
      buffer_size: 128,
    });
  }

  /** Whether anything reached Slack (the stream's message exists). */
  get started(): boolean {
    return this.pushed && this.streamer.ts !== undefined;
  }

  push(text: string): void {
    if (!text) return;
    this.pushed = true;
    this.pending = this.pending.then(() => this.attempt(() => this.streamer.append({ markdown_text: text })));
  }

  async stop(): Promise<void> {
    await this.pending;
    // A stream with no text was never started, and Slack refuses an empty one.
    if (this.pushed) await this.attempt(() => this.streamer.stop());
  }

  private async attempt(call: () => Promise<unknown>): Promise<void> {
    if (this.failed) return;
    try {
      await call();
    } catch (error) {
      this.failed = true;
      this.logger.warn({ error: String(error) }, 'Slack streaming failed; posting the answer as a message');
    }
  }
}

/**
 * Answers a question in its thread: a placeholder that names the tool being run, then the answer
 * (streamed when enabled), split within Slack's limits. Failures are answered in plain words.
 */
export async function answerInThread(question: Question, dependencies: AnswerDependencies): Promise<void> {
  const { client, logger } = dependencies;
  const where = { channel: question.channel, thread_ts: question.threadTs };
  const placeholder = await client.chat.postMessage({ ...where, text: '💭 考えています…' });
  const placeholderTs = placeholder.ts as string;
  const update = (text: string) => client.chat.update({ channel: question.channel, ts: placeholderTs, text });
  const stream = dependencies.streaming ? new AnswerStream(client, question, logger) : undefined;
  const started = Date.now();
  try {
    const thread = await fetchThread(client, question.channel, question.threadTs);
    const history = threadToHistory(thread, dependencies.bot, question.messageTs, dependencies.historyLimit, [
      placeholderTs,
    ]);
    let statusUpdate = Promise.resolve();
    const result = await dependencies.chat.respond({
      history,
      userMessage: question.text,
      streamText: dependencies.streaming,
      onEvent: (event) => {
        if (event.type === 'tool_start') {
          statusUpdate = statusUpdate
            .then(() => update(toolStatus(event)).then(() => undefined))
            .catch(() => undefined);
        } else if (event.type === 'text_delta') {
          // Streamed text reaches Slack unconverted: escaped, so it can neither ping nor fake a link.
          stream?.push(escapeSlackText(event.text));
        }
      },
    });
    await statusUpdate;
    logger.info(
      {
        channel: question.channel,
        thread: question.threadTs,
        ms: Date.now() - started,
        tools: result.trace.map((entry) => ({
          tool: entry.name,
          ok: entry.ok,
          ms: Math.round(entry.durationMs),
        })),
      },
      'answered',
    );
    if (stream) {
      await stream.stop();
      if (stream.started && !stream.failed) {
        await client.chat.delete({ channel: question.channel, ts: placeholderTs }).catch(() => undefined);
        return;
      }
    }
    const [first, ...rest] = splitMessage(markdownToMrkdwn(result.text.trim() || '（回答が空でした）'));
    await update(first ?? '');
    for (const part of rest) await client.chat.postMessage({ ...where, text: part });
  } catch (error) {
    logger.error({ channel: question.channel, thread: question.threadTs, error }, 'answer failed');
    await stream?.stop().catch(() => undefined);
    await update(failureText(error)).catch((updateError: unknown) => {
      logger.error({ error: updateError }, 'could not post the failure message either');
    });
  }
}
