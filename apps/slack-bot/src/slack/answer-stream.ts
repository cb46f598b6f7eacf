import type { Logger } from '@ai-assistant/host-core';
import type { App, types } from '@slack/bolt';
import { SlackMarkdownStream } from '../format/markdown-stream.js';
import type { Question } from './answer.js';

type KnownBlock = types.KnownBlock;
type WebClient = App['client'];

/** A tool call as a task of the streamed message's timeline. */
export interface Task {
  id: string;
  title: string;
  status: 'in_progress' | 'complete' | 'error';
  details?: string;
  output?: string;
}

/**
 * The answer streamed into one Slack message by `client.chatStream()` (chat.startStream, appendStream,
 * stopStream; the library buffers the text): each tool call is a task of its timeline (running, then
 * done or failed), the text follows, and feedback buttons close it. Calls run one after another; the
 * first failure stops streaming and the answer is posted as an ordinary message instead.
 */
export class AnswerStream {
  private readonly streamer: ReturnType<WebClient['chatStream']>;
  private pending: Promise<unknown> = Promise.resolve();
  private pushed = false;
  private textSent = false;
  private buffer = '';
  private readonly markdown = new SlackMarkdownStream();
  private timer: NodeJS.Timeout | undefined;
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
      // Each tool call on its own line of the timeline.
      task_display_mode: 'timeline',
    });
  }

  /** Whether anything reached Slack (the stream's message exists). */
  get started(): boolean {
    return this.pushed && this.streamer.ts !== undefined;
  }

  /** Whether the stream took over showing progress (something was sent, nothing failed). */
  get live(): boolean {
    return this.pushed && !this.failed;
  }

  /**
   * The model's Markdown text of the answer. The first text goes at once (the person sees the answer
   * begin as soon as the model does); after that it is sent every 128 characters, or 250 ms after it
   * arrived, whichever comes first: few calls for a fast model, no long wait for a slow one. It reaches
   * Slack through `SlackMarkdownStream`: escaped, every link honest about its target.
   */
  push(text: string): void {
    if (!text) return;
    this.pushed = true;
    this.buffer += text;
    if (!this.textSent || this.buffer.length >= 128) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), 250);
  }

  private flush(end = false): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const markdown = this.buffer;
    this.buffer = '';
    if (!markdown && !end) return;
    this.textSent = true;
    const text = this.markdown.push(markdown) + (end ? this.markdown.flush() : '');
    if (!text) return;
    // `chunks` makes the library send now instead of buffering again.
    this.enqueue(() => this.streamer.append({ markdown_text: text, chunks: [] }));
  }

  private enqueue(call: () => Promise<unknown>): void {
    this.pending = this.pending.then(() => this.attempt(call));
  }

  /** A tool call's task: sent at once (the text before it goes first). */
  task(task: Task): void {
    this.pushed = true;
    this.flush();
    this.enqueue(() => this.streamer.append({ chunks: [{ type: 'task_update', ...task }] }));
  }

  async stop(blocks?: KnownBlock[]): Promise<void> {
    this.flush(true);
    await this.pending;
    // A stream with no text was never started, and Slack refuses an empty one.
    if (this.pushed) await this.attempt(() => this.streamer.stop(blocks ? { blocks } : undefined));
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

/** A task's title: what the server says it does, else the tool's name; plain, no mrkdwn. */
export function taskTitle(event: { statusMessage?: string; tool?: string; name: string }): string {
  const title = (event.statusMessage ?? `${event.tool ?? event.name} を実行しています`).replace(
    /[<>&*_~`]/g,
    ' ',
  );
  return title.length > 150 ? `${title.slice(0, 149)}…` : title;
}
