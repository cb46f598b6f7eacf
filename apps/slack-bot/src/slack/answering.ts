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
  /** Longest an answer may take once started (`ANSWER_TIMEOUT_MS`), not counting approval waits. */
  answerTimeoutMs: number;
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
 * is busy or the thread has an answer running), queues the answer per thread, and gives each answer
 * a deadline. `stop()` lets running answers finish, then aborts the rest, each with a word in its thread.
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
        const deadline = new Deadline(this.options.answerTimeoutMs);
        const signal = AbortSignal.any([this.shutdown.signal, deadline.signal]);
        const asker = question.user;
        // Only the asker is asked (approvals, a server's questions). While they decide, the answer's
        // clock stops and it holds no answer slot: other people's questions go on meanwhile.
        const whileAsking = async <T>(asked: string, ask: (context: ApprovalContext) => Promise<T>) => {
          deadline.pause();
          try {
            const context = {
              channel: question.channel,
              threadTs: question.threadTs,
              asker: asked,
              ...(question.team ? { workspace: question.team } : {}),
              client,
            };
            return await slot.away(() => ask({ ...context, signal: this.shutdown.signal }));
          } finally {
            deadline.resume();
          }
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
        try {
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
              signal,
              wrapUp: deadline.wrapUp,
              shuttingDown: () => this.shutdown.signal.aborted,
              ...(approve ? { approve } : {}),
              ...(elicit ? { elicit } : {}),
              turn: this.options.turns.turnFor(question),
            },
          );
        } finally {
          deadline.clear();
        }
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

/** An answer's deadline, paused while a person is asked for approval (their time is not the model's). */
class Deadline {
  private readonly controller = new AbortController();
  private readonly wrapUpController = new AbortController();
  private timers: NodeJS.Timeout[] = [];
  private left: number;
  private started = Date.now();
  private paused = 0;
  /** Kept for the last model call: a quarter of the time, at most 30 s. */
  private readonly reserve: number;

  constructor(ms: number) {
    this.left = ms;
    this.reserve = Math.min(30_000, Math.floor(ms / 4));
    this.resume();
  }

  /** Fires at the deadline: whatever still runs is cancelled. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Fires when only the reserve is left: no more tools, the answer from what is known. */
  get wrapUp(): AbortSignal {
    return this.wrapUpController.signal;
  }

  /** Stops the clock (nested pauses count: parallel approvals). */
  pause(): void {
    if (this.paused++ > 0) return;
    this.clear();
    this.left -= Date.now() - this.started;
  }

  resume(): void {
    if (this.paused > 0 && --this.paused > 0) return;
    this.started = Date.now();
    this.timers = [
      setTimeout(() => this.wrapUpController.abort(), Math.max(0, this.left - this.reserve)),
      setTimeout(() => this.controller.abort(), Math.max(0, this.left)),
    ];
    for (const timer of this.timers) timer.unref();
  }

  clear(): void {
    for (const timer of this.timers) clearTimeout(timer);
  }
}
