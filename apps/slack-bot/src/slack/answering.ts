import type { Logger } from '@ai-assistant/host-core';
import { type AnswerDependencies, answerInThread, type Question, slackErrorCode } from './answer.js';
import type { ThreadMemory } from './thread-memory.js';
import type { WorkQueue } from './work-queue.js';

/** What {@link Answering} needs beyond answering one question. */
export interface AnsweringOptions extends Omit<AnswerDependencies, 'signal' | 'bot'> {
  queue: WorkQueue;
  threads: ThreadMemory;
  bot: () => AnswerDependencies['bot'];
  /** Longest an answer may take once started (`ANSWER_TIMEOUT_MS`). */
  answerTimeoutMs: number;
  logger: Logger;
}

export const waitingText = '⏳ 順番待ちです…';
export const thinkingText = '💭 考えています…';

/**
 * Takes questions in: says at once that the bot heard (a placeholder, "順番待ちです…" when every slot
 * is busy or the thread has an answer running), queues the answer per thread, and gives each answer
 * a deadline. `stop()` lets running answers finish, then aborts the rest, each with a word in its thread.
 */
export class Answering {
  private readonly shutdown = new AbortController();

  constructor(private readonly options: AnsweringOptions) {}

  /** Queues a question; false when the app is shutting down. */
  accept(question: Question): boolean {
    const { queue, logger, client } = this.options;
    const key = `${question.channel}:${question.threadTs}`;
    if (!queue.accepting) return false;
    this.options.threads.remember(question.channel, question.threadTs);
    const waiting = queue.wouldWait(key);
    const placeholder = client.chat
      .postMessage({
        channel: question.channel,
        thread_ts: question.threadTs,
        text: waiting ? waitingText : thinkingText,
      })
      .then(
        (posted) => posted.ts,
        (error: unknown) => {
          logger.error(
            { channel: question.channel, thread: question.threadTs, slackError: slackErrorCode(error) },
            'could not post the placeholder',
          );
          return undefined;
        },
      );
    return queue.push(key, async () => {
      const placeholderTs = await placeholder;
      const signal = AbortSignal.any([
        this.shutdown.signal,
        AbortSignal.timeout(this.options.answerTimeoutMs),
      ]);
      await answerInThread(
        { ...question, ...(placeholderTs ? { placeholderTs, placeholderWaiting: waiting } : {}) },
        {
          ...this.options,
          bot: this.options.bot(),
          signal,
          shuttingDown: () => this.shutdown.signal.aborted,
        },
      );
    });
  }

  /**
   * Stops taking questions and lets running answers finish for `graceMs`; then aborts what still runs
   * (each thread gets "再起動のため中断しました…") and waits briefly for those words to be posted.
   */
  async stop(graceMs: number): Promise<boolean> {
    if (await this.options.queue.drain(graceMs)) return true;
    this.shutdown.abort();
    return this.options.queue.drain(3000);
  }
}
