import type {
  ApprovalDecision,
  ApprovalRequest,
  ElicitationAnswer,
  ElicitationRequest,
  Logger,
} from '@ai-assistant/host-core';
import { type AnswerDependencies, answerInThread, type Question, slackErrorCode } from './answer.js';
import type { ApprovalContext, SlackApprovals } from './approvals.js';
import type { SlackElicitations } from './elicitation.js';
import { assistantStatus } from './progress.js';
import type { EventClaims } from './replicas.js';
import type { RecordedTurn } from './thread-history.js';
import type { ThreadMemory } from './thread-memory.js';
import type { WorkQueue } from './work-queue.js';

/** What {@link Answering} needs beyond answering one question. */
export interface AnsweringOptions extends Omit<AnswerDependencies, 'signal' | 'bot' | 'turn'> {
  queue: WorkQueue;
  threads: ThreadMemory;
  bot: () => AnswerDependencies['bot'];
  /** Asks the asker before tools that need approval. */
  approvals: SlackApprovals;
  /** Asks the asker what a server wants to know in the middle of a tool call. */
  elicitations?: SlackElicitations;
  /** Thread turns across replicas (absent: this process's queue alone orders a thread). */
  claims?: EventClaims;
  /** Each question's turn in its recorded thread (the thread recorder: history from the log, answer to it). */
  turns: { turnFor(question: Question): RecordedTurn };
  logger: Logger;
}

export const waitingText = '⏳ 順番待ちです…';
export const thinkingText = '💭 考えています…';

/**
 * Takes questions in: says at once that the bot heard (a placeholder, "順番待ちです…" when every slot
 * is busy or the thread has an answer running) and queues the answer per thread; the chat service keeps
 * each answer's deadline. `stop()` lets running answers finish, then aborts the rest, each with a word in
 * its thread.
 */
export class Answering {
  private readonly shutdown = new AbortController();

  constructor(private readonly options: AnsweringOptions) {}

  /** Queues a question; false when the app is shutting down. */
  accept(question: Question): boolean {
    const { queue, logger } = this.options;
    // The workspace's own client (its install's token) when Bolt authorized the event.
    const client = question.client ?? this.options.client;
    const thread = `${question.channel}:${question.threadTs}`;
    if (!queue.accepting) return false;
    this.options.threads.remember(question.channel, question.threadTs);
    // Across replicas the thread's turn (in Slack's order) orders its answers, this replica's included:
    // each message is its own job, or two messages that arrived out of order would wait on each other.
    const turn = this.options.claims?.turn(question, this.shutdown.signal);
    const key = turn ? `${thread}:${question.messageTs}` : thread;
    const waiting = queue.wouldWait(thread);
    const postPlaceholder = (queued: boolean): Promise<string | undefined> =>
      question.surface === 'assistant'
        ? // The assistant pane shows a status instead of a placeholder message.
          assistantStatus(
            client,
            logger,
            question.channel,
            question.threadTs,
            queued ? '順番待ちです…' : '考えています…',
          ).then(() => undefined)
        : client.chat
            .postMessage({
              channel: question.channel,
              thread_ts: question.threadTs,
              text: queued ? waitingText : thinkingText,
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
    // One replica: the placeholder is posted now, in arrival order. Across replicas it is posted when the
    // thread's turn comes: placeholders posted on arrival by two replicas could sit in the thread in
    // another order than the answers ran, and each answer replaces its own placeholder.
    const placeholder = turn && question.surface !== 'assistant' ? undefined : postPlaceholder(waiting);
    return queue.push(
      key,
      async (slot) => {
        const placeholderTs = placeholder ? await placeholder : await postPlaceholder(false);
        const asker = question.user;
        // Only the asker is asked (approvals, a server's questions). While they decide, the answer holds
        // no answer slot (and the chat service stops its clock): other people's questions go on meanwhile.
        const whileAsking = <T>(asked: string, ask: (context: ApprovalContext) => Promise<T>) => {
          const context = {
            channel: question.channel,
            threadTs: question.threadTs,
            asker: asked,
            ...(question.team ? { workspace: question.team } : {}),
            client,
          };
          return slot.away(() => ask({ ...context, signal: this.shutdown.signal }));
        };
        const elicitations = this.options.elicitations;
        const approve = asker
          ? (request: ApprovalRequest): Promise<ApprovalDecision> =>
              whileAsking(asker, (context) => this.options.approvals.ask(request, context))
          : undefined;
        const elicit =
          asker && elicitations
            ? (request: ElicitationRequest): Promise<ElicitationAnswer> =>
                whileAsking(asker, (context) => elicitations.ask(request, context))
            : undefined;
        await answerInThread(
          {
            ...question,
            ...(placeholderTs ? { placeholderTs } : {}),
            placeholderWaiting: waiting,
          },
          {
            ...this.options,
            client,
            bot: question.bot ?? this.options.bot(),
            signal: this.shutdown.signal,
            shuttingDown: () => this.shutdown.signal.aborted,
            ...(approve ? { approve } : {}),
            ...(elicit ? { elicit } : {}),
            turn: this.options.turns.turnFor(question),
          },
        );
      },
      turn,
      thread,
    );
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
