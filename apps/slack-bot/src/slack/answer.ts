import type { ChatEvent, ChatService, Logger, RespondInput, ToolHost } from '@ai-assistant/host-core';
import type { App } from '@slack/bolt';
import type { AppViews } from '../app-views/app-views.js';
import { AnswerStream, taskTitle } from './answer-stream.js';
import { type Attachments, fileOrigins, readAttachments, type SlackFile } from './attachments.js';
import { feedbackBlocks } from './feedback-blocks.js';
import { personOf } from './people.js';
import { failureText, progressStatus, toolStatus } from './status-lines.js';
import { ToolFiles } from './tool-files.js';

export { failureText, interruptedText, progressStatus, toolStatus, tooSlowText } from './status-lines.js';

import { markdownToMrkdwn } from '../format/slack-text.js';
import { splitMessage } from '../format/split-message.js';
import { assistantProgress, type Progress, placeholderProgress } from './progress.js';
import { type BotIdentity, type RecordedTurn, type SlackMessage, threadToHistory } from './thread-history.js';

type WebClient = App['client'];
type ToolView = Extract<ChatEvent, { type: 'tool_view' }>;

/** One question to answer in a Slack thread. */
export interface Question {
  channel: string;
  /** The thread to answer in (the mention itself when it starts a thread). */
  threadTs: string;
  /** The message being answered. */
  messageTs: string;
  text: string;
  /** What auto-context looks up, when not `text` (a server prompt's arguments, not its filled text). */
  autoContextQuery?: string;
  /** The person who asked (absent for events without a user). */
  user?: string;
  /** Their workspace (the event's team_id). */
  team?: string;
  /** The placeholder already posted for this question, if any. */
  placeholderTs?: string;
  /** Whether that placeholder says "順番待ちです…" (it changes to "考えています…" when work starts). */
  placeholderWaiting?: boolean;
  /** `assistant`: a thread of Slack's assistant pane (status instead of a placeholder). */
  surface?: 'assistant';
  /** Slack's event id (the same on a retry): the claim across replicas and the thread's order. */
  eventId?: string;
  /** The client Bolt authorized for this event (the workspace's bot token). */
  client?: WebClient;
  /** The bot's identity in this workspace. */
  bot?: BotIdentity;
  /** Files attached to the message: images, PDFs and text files are read for the model. */
  files?: SlackFile[];
}

/** What answering needs. */
export interface AnswerDependencies {
  client: WebClient;
  chat: ChatService;
  bot: BotIdentity;
  logger: Logger;
  historyLimit: number;
  streaming: boolean;
  /** The question's turn in its recorded thread: the history comes from it, the answer goes to it. */
  turn: RecordedTurn;
  /** Aborts the answer: the app shutting down (the chat service keeps the answer's deadline). */
  signal?: AbortSignal;
  /** Whether a cancelled answer was stopped by the app shutting down (else: its deadline passed). */
  shuttingDown?: () => boolean;
  /** Asks the asker to approve a tool call (absent: such calls are refused). */
  approve?: RespondInput['approve'];
  /** Asks the asker what a server wants to know in the middle of a tool call (absent: declined). */
  elicit?: RespondInput['elicit'];
  /** The asker's tools for this turn (their workspace's servers, their own credentials). */
  tools?: (question: Question) => Promise<ToolHost | undefined>;
  /**
   * A tool needed the asker's own credential for `server`: offer them a way to connect it (`refused`:
   * again, their credential was refused; `scope`: the scope a step-up asks for).
   */
  onCredentialNeeded?: (question: Question, server: string, refused: boolean, scope?: string) => void;
  /**
   * A tool running as an MCP task was still working when the answer ended: the app follows it and posts
   * its result in the thread (absent: such a task is cancelled with the answer).
   */
  onTaskDetached?: (
    question: Question,
    task: { tool: string; taskId: string; label: string },
  ) => Promise<void>;
  /** Offers, under the answer, the MCP Apps views of the results that have one (an Open button). */
  views?: Pick<AppViews, 'blocksFor'>;
}

/** The Slack error code of a failed Web API call (`channel_not_found`, `ratelimited`, …). */
export function slackErrorCode(error: unknown): string | undefined {
  const data = (error as { data?: { error?: unknown } }).data;
  if (typeof data?.error === 'string') return data.error;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** The tools the bot's earlier answers in the thread used (recorded with them), latest last. */
function threadTools(thread: SlackMessage[], before: string): string[] {
  const used = thread
    .filter((message) => message.tools && (message.ts ?? '') <= before)
    .flatMap((m) => m.tools ?? []);
  return [...new Set(used.reverse())].reverse().slice(-20);
}

/**
 * Answers a question in its thread: a placeholder that names the tool being run, then the answer
 * (streamed when enabled), split within Slack's limits. Failures are answered in plain words.
 */
export async function answerInThread(question: Question, dependencies: AnswerDependencies): Promise<void> {
  const { client, logger } = dependencies;
  const progress = await startProgress(question, dependencies);
  if (!progress) return;
  const stream = dependencies.streaming ? new AnswerStream(client, question, logger) : undefined;
  const started = Date.now();
  try {
    const thread = await dependencies.turn.history(dependencies.historyLimit);
    const history = threadToHistory(
      thread,
      dependencies.bot,
      question.messageTs,
      dependencies.historyLimit,
      progress.skipTs,
    );
    // Files are read only once the turn is admitted (budgets and the rate first): a refused question
    // downloads nothing.
    let attached: Attachments | undefined;
    const questionFiles = question.files;
    const readFiles = questionFiles?.length
      ? async () => {
          attached = await readAttachments(questionFiles, {
            token: client.token,
            allowedOrigins: fileOrigins(client.slackApiUrl),
            logger,
            ...(dependencies.signal ? { signal: dependencies.signal } : {}),
          });
          return attached;
        }
      : undefined;
    const tools = await dependencies.tools?.(question);
    const offered = new Set<string>();
    /** Each running call's original tool name, for its progress line. */
    const running = new Map<string, string>();
    /** Each call's task title on the streamed timeline. */
    const titles = new Map<string, string>();
    /** When each call's progress last reached the stream. */
    const progressSentAt = new Map<string, number>();
    const files = new ToolFiles(client, logger, question.channel, question.threadTs);
    const detached: Array<{ tool: string; taskId: string; label: string }> = [];
    const withViews: ToolView[] = [];
    const result = await dependencies.chat.respond({
      ...(dependencies.onTaskDetached ? { detachTasks: true } : {}),
      ...(tools ? { tools } : {}),
      history,
      usedTools: threadTools(thread, question.messageTs),
      userMessage: question.text,
      ...(readFiles ? { attached: readFiles } : {}),
      ...(question.autoContextQuery !== undefined ? { autoContextQuery: question.autoContextQuery } : {}),
      streamText: dependencies.streaming,
      ...(dependencies.signal ? { signal: dependencies.signal } : {}),
      ...(dependencies.approve ? { approve: dependencies.approve } : {}),
      ...(dependencies.elicit ? { elicit: dependencies.elicit } : {}),
      onEvent: (event) => {
        if (event.type === 'tool_start') {
          running.set(event.callId, event.tool ?? event.name);
          if (stream && !stream.failed) {
            titles.set(event.callId, taskTitle(event));
            stream.task({ id: event.callId, title: taskTitle(event), status: 'in_progress' });
          } else progress.status(toolStatus(event));
        } else if (event.type === 'tool_end') {
          const title = titles.get(event.callId);
          if (stream && title)
            stream.task({
              id: event.callId,
              title,
              status: event.ok ? 'complete' : 'error',
              output: event.ok ? `${(event.durationMs / 1000).toFixed(1)} 秒` : '失敗しました',
            });
        } else if (event.type === 'tool_images') {
          files.add(event.tool ?? event.name, event.images);
        } else if (event.type === 'tool_files') {
          files.addFiles(event.tool ?? event.name, event.files);
        } else if (event.type === 'tool_view') {
          withViews.push(event);
        } else if (event.type === 'tool_progress') {
          const title = titles.get(event.callId);
          if (stream?.live && title) {
            // The running task's details, at most one update a second per call.
            const last = progressSentAt.get(event.callId) ?? 0;
            if (Date.now() - last >= 1000) {
              progressSentAt.set(event.callId, Date.now());
              stream.task({
                id: event.callId,
                title,
                status: 'in_progress',
                details: progressStatus(event, running.get(event.callId)).replace(/`/g, ''),
              });
            }
            // Throttled by the progress itself: at most one status update a second per thread.
          } else progress.status(progressStatus(event, running.get(event.callId)));
        } else if (event.type === 'credential_needed' && !offered.has(event.server)) {
          offered.add(event.server);
          dependencies.onCredentialNeeded?.(question, event.server, event.refused === true, event.scope);
        } else if (event.type === 'text_delta') {
          stream?.push(event.text);
        } else if (event.type === 'task_detached') {
          detached.push({ tool: event.name, taskId: event.taskId, label: event.tool ?? event.name });
        }
      },
    });
    // The answer it got goes to the thread's record (never its tool steps).
    await dependencies.turn.answered(result.text, result.usedTools);
    await Promise.all([progress.settled(), files.settled()]);
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
    // Tasks that go on are announced under the answer (and followed from then on).
    const announce = async () => {
      for (const task of detached)
        await dependencies
          .onTaskDetached?.(question, task)
          .catch((error: unknown) => logger.warn({ error }, 'could not record a task that goes on'));
    };
    // Files that did not reach the model are named under the answer, with the reason.
    const notes = attached?.notes.length
      ? `\n\n${attached.notes.map((note) => `📎 ${note}`).join('\n')}`
      : '';
    // Results with an MCP Apps view: a line each, with Open, under the answer.
    const viewBlocks =
      withViews.length > 0 && question.user && dependencies.views
        ? await dependencies.views.blocksFor(
            {
              channel: question.channel,
              threadTs: question.threadTs,
              workspace: personOf(question).workspace,
              asker: question.user,
            },
            withViews,
          )
        : [];
    if (stream) {
      stream.push(notes);
      await stream.stop([...viewBlocks, ...feedbackBlocks()]);
      if (stream.started && !stream.failed) {
        await progress.discard();
        await announce();
        return;
      }
    }
    await progress.finish(
      splitMessage(markdownToMrkdwn((result.text.trim() || '（回答が空でした）') + notes)),
      viewBlocks,
    );
    await announce();
  } catch (error) {
    const shuttingDown = dependencies.shuttingDown?.() ?? false;
    logger.error({ channel: question.channel, thread: question.threadTs, error }, 'answer failed');
    await stream?.stop().catch(() => undefined);
    await progress.fail(failureText(error, shuttingDown)).catch((updateError: unknown) => {
      logger.error(
        { slackError: slackErrorCode(updateError), error: updateError },
        'could not post the failure message either',
      );
    });
  }
}

/**
 * How this thread shows progress: the assistant pane's status, or a placeholder message (posted now
 * unless one was posted on arrival). Undefined when not even the placeholder could be posted.
 */
async function startProgress(
  question: Question,
  dependencies: AnswerDependencies,
): Promise<Progress | undefined> {
  const { client, logger } = dependencies;
  const { channel, threadTs } = question;
  if (question.surface === 'assistant') {
    const progress = assistantProgress(client, logger, channel, threadTs);
    // The status said "考えています…" on arrival; it changes only if it said "順番待ちです…".
    if (question.placeholderWaiting) progress.status('考えています…');
    return progress;
  }
  let ts = question.placeholderTs;
  if (!ts) {
    try {
      ts = (await client.chat.postMessage({ channel, thread_ts: threadTs, text: '💭 考えています…' }))
        .ts as string;
    } catch (error) {
      logger.error(
        { channel, thread: threadTs, slackError: slackErrorCode(error) },
        'could not post the placeholder; the question is not answered',
      );
      return undefined;
    }
  } else if (question.placeholderWaiting) {
    await client.chat.update({ channel, ts, text: '💭 考えています…' }).catch(() => undefined);
  }
  return placeholderProgress(client, channel, threadTs, ts);
}
