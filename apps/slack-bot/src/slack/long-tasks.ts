import { setTimeout as delay } from 'node:timers/promises';
import type { People } from '@ai-assistant/assistant';
import type { Logger, ToolCallOutcome } from '@ai-assistant/host-core';
import type { LongTask, LongTasks } from '@ai-assistant/store';
import type { App } from '@slack/bolt';
import { escapeSlackText, markdownToMrkdwn } from '../format/slack-text.js';
import { splitMessage } from '../format/split-message.js';
import { slackErrorCode } from './answer.js';
import { button } from './buttons.js';
import { ToolFiles } from './tool-files.js';

type WebClient = App['client'];

/** The Cancel button under a task that outlived its answer (its value is the task's record id). */
export const longTaskActions = { cancel: 'long_task_cancel' } as const;

/** How long one follow waits for the task before looking again (and noticing a stop). */
const followWaitMs = 10_000;

/** A task's place in Slack: `<channel>:<thread ts>`. */
const placeOf = (channel: string, threadTs: string) => `${channel}:${threadTs}`;
const parsePlace = (place: string) => {
  const [channel = '', threadTs = ''] = place.split(':');
  return { channel, threadTs };
};

/** What following tasks needs. */
export interface LongTaskFollowerOptions {
  people: People;
  tasks: LongTasks;
  logger: Logger;
  /** The workspace's bot client (its install's token); undefined when the app is not installed there. */
  clientFor(workspace: string): Promise<WebClient | undefined>;
  /**
   * The wait before looking again after a follow failed (doubled each time it fails again in a row):
   * a server restarting or unreachable for a while does not end the task. Default 10 s.
   */
  retryMs?: number;
}

/** How many times a failed follow is tried again; the next failure in a row reports the task failed (with 10 s: about 5 min). */
const failuresAllowed = 5;

/**
 * MCP tasks that outlived their answer: each is recorded in the store, announced in its thread with a
 * Cancel button (its person's only), followed through its person's own view, and its result posted in
 * the thread when it completes. The replica that recorded a task follows it; when that replica stops,
 * another (or the same one restarted) takes it over.
 */
export class LongTaskFollower {
  private readonly following = new Map<string, Promise<void>>();
  private readonly stopping = new AbortController();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: LongTaskFollowerOptions) {}

  /** A turn left a task running: record it, say so in the thread, and follow it. */
  async detached(
    client: WebClient,
    where: { workspace: string; person: string; channel: string; threadTs: string },
    task: { tool: string; taskId: string; label: string },
  ): Promise<void> {
    const { tasks, logger } = this.options;
    const recorded = await tasks.record({
      workspace: where.workspace,
      person: where.person,
      tool: task.tool,
      taskId: task.taskId,
      place: placeOf(where.channel, where.threadTs),
    });
    const text = `⏳ \`${escapeSlackText(task.label)}\` は時間がかかるため、回答のあとも続けています。終わったらこのスレッドに結果を投稿します。`;
    try {
      const posted = await client.chat.postMessage({
        channel: where.channel,
        thread_ts: where.threadTs,
        text,
        blocks: [
          { type: 'section', text: { type: 'mrkdwn', text } },
          {
            type: 'actions',
            block_id: `long-task:${recorded.id}`,
            elements: [button('Cancel', longTaskActions.cancel, recorded.id, 'danger')],
          },
        ],
      });
      await tasks.setMessage(recorded.id, String(posted.ts));
      recorded.messageRef = String(posted.ts);
    } catch (error) {
      logger.warn({ slackError: slackErrorCode(error) }, 'could not announce a task that goes on');
    }
    this.follow(recorded);
  }

  /** Takes over the tasks of replicas that stopped (and of this replica's earlier life). */
  async tick(): Promise<number> {
    let taken = 0;
    for (const task of await this.options.tasks.orphans()) {
      if (this.stopping.signal.aborted || this.following.has(task.id)) continue;
      if (!(await this.options.tasks.takeOver(task))) continue;
      this.options.logger.info(
        { task: task.id, from: task.replicaKey },
        'took over a task whose replica stopped',
      );
      taken++;
      this.follow(task);
    }
    return taken;
  }

  /** Ticks every `everyMs` (and once now) until `stop`. */
  startTicking(everyMs: number): void {
    const tick = () =>
      void this.tick().catch((error: unknown) => this.options.logger.warn({ error }, 'a task tick failed'));
    tick();
    this.timer = setInterval(tick, everyMs);
    this.timer.unref();
  }

  /**
   * The person pressed Cancel: only the task's own person may; it is cancelled on the server and the
   * thread says so. Returns why nothing happened, if nothing did.
   */
  async cancel(id: string, presser: string, workspace: string): Promise<string | undefined> {
    const { tasks, people } = this.options;
    const task = await tasks.get(id);
    if (!task || task.workspace !== workspace) return 'That task is not known here.';
    if (task.person !== presser) return `Only <@${task.person.replace(/[^A-Z0-9]/gi, '')}> can cancel it.`;
    if (task.state !== 'running') return 'That task has ended already.';
    const view = await people.viewFor({ workspace: task.workspace, user: task.person });
    await view
      ?.callTool(task.tool, {}, { followTask: { taskId: task.taskId, cancel: true } })
      .catch(() => undefined);
    if (await tasks.finish(task.id, 'cancelled', `cancelled by ${presser}`))
      await this.settle(task, `✖️ \`${escapeSlackText(task.tool)}\` を取り消しました。`);
    return undefined;
  }

  private follow(task: LongTask): void {
    if (this.following.has(task.id)) return;
    const run = this.followUntilDone(task)
      .catch((error: unknown) =>
        this.options.logger.warn({ task: task.id, error }, 'following a task failed'),
      )
      .finally(() => this.following.delete(task.id));
    this.following.set(task.id, run);
  }

  private async followUntilDone(task: LongTask): Promise<void> {
    const { people, tasks } = this.options;
    const view = await people.viewFor({ workspace: task.workspace, user: task.person });
    if (!view) {
      if (await tasks.finish(task.id, 'failed', 'MCP is off'))
        await this.settle(task, '⚠️ MCP が無効になったため、タスクを追えません。');
      return;
    }
    let failures = 0;
    while (!this.stopping.signal.aborted) {
      let outcome: ToolCallOutcome;
      try {
        outcome = await view.callTool(
          task.tool,
          {},
          {
            followTask: { taskId: task.taskId, waitMs: followWaitMs },
            signal: this.stopping.signal,
          },
        );
      } catch (error) {
        if (this.stopping.signal.aborted) return;
        const reason = error instanceof Error ? error.message : String(error);
        // A server restarting or out of reach for a while: look again later, a few times, before
        // giving the task up (each failure is logged, the last one is posted).
        if (++failures <= failuresAllowed) {
          // At most an hour between looks (a timer cannot wait past 2³¹−1 ms anyway).
          const waitMs = Math.min((this.options.retryMs ?? 10_000) * 2 ** (failures - 1), 3_600_000);
          this.options.logger.warn(
            { task: task.id, failures, waitMs, error: reason },
            'following a task failed; looking again later',
          );
          await delay(waitMs, undefined, { signal: this.stopping.signal }).catch(() => undefined);
          continue;
        }
        if (await tasks.finish(task.id, 'failed', reason))
          await this.settle(
            task,
            `⚠️ \`${escapeSlackText(task.tool)}\` の結果を受け取れませんでした: ${escapeSlackText(reason).slice(0, 500)}`,
          );
        return;
      }
      failures = 0;
      if (outcome.task?.status === 'working') continue;
      const state =
        outcome.task?.status === 'cancelled' ? 'cancelled' : outcome.isError ? 'failed' : 'completed';
      if (!(await tasks.finish(task.id, state, outcome.text.slice(0, 200)))) return;
      await this.settle(
        task,
        `${state === 'completed' ? '✅' : '⚠️'} \`${escapeSlackText(task.tool)}\` の結果:\n\n${outcome.text}`,
        outcome,
      );
      return;
    }
  }

  /** Posts a task's end in its thread and takes the Cancel button off its message. */
  private async settle(task: LongTask, text: string, outcome?: ToolCallOutcome): Promise<void> {
    const { logger } = this.options;
    const client = await this.options.clientFor(task.workspace);
    if (!client) return;
    const { channel, threadTs } = parsePlace(task.place);
    try {
      // The result is a tool's text: untrusted, escaped like any answer.
      for (const chunk of splitMessage(markdownToMrkdwn(text)))
        await client.chat.postMessage({ channel, thread_ts: threadTs, text: chunk });
      if (outcome?.images?.length) {
        const files = new ToolFiles(client, logger, channel, threadTs);
        files.add(task.tool, outcome.images);
        await files.settled();
      }
      if (task.messageRef)
        await client.chat.update({
          channel,
          ts: task.messageRef,
          text: `⏹ \`${escapeSlackText(task.tool)}\` は終了しました。`,
          blocks: [],
        });
    } catch (error) {
      logger.warn({ task: task.id, slackError: slackErrorCode(error) }, 'could not post a task’s end');
    }
  }

  /** Stops following (the tasks stay recorded: a replica takes them over). */
  async stop(): Promise<void> {
    this.stopping.abort();
    clearInterval(this.timer);
    await Promise.allSettled([...this.following.values()]);
  }
}
