import { localTime, type Occurrence, type OccurrenceResult, type People } from '@ai-assistant/assistant';
import type {
  ApprovalDecision,
  ApprovalRequest,
  ChatService,
  ImageContent,
  Logger,
} from '@ai-assistant/host-core';
import type { ScheduleRecord, Schedules } from '@ai-assistant/store';
import type { App } from '@slack/bolt';
import { escapeSlackText, markdownToMrkdwn } from '../format/slack-text.js';
import { splitMessage } from '../format/split-message.js';
import { slackErrorCode } from './answer.js';
import type { SlackApprovals } from './approvals.js';
import { button } from './buttons.js';
import { credentialActions } from './people.js';
import { ToolFiles } from './tool-files.js';

type WebClient = App['client'];

/** Why a schedule can no longer run as its owner there, or undefined when it can. */
export type AccessProblem = string | undefined;

/** What scheduled runs need of the app. */
export interface ScheduledRunsOptions {
  people: People;
  chat: ChatService;
  schedules: Schedules;
  approvals: SlackApprovals;
  logger: Logger;
  /** The workspace's bot client (its install's token), or undefined when the app is not installed there. */
  clientFor(workspace: string): Promise<WebClient | undefined>;
  /** A task still working when the run's answer ended: followed, its result posted under the run's post. */
  onTaskDetached?: (
    client: WebClient,
    where: { workspace: string; person: string; channel: string; threadTs: string },
    task: { tool: string; taskId: string; label: string },
  ) => Promise<void>;
}

/** Slack ids as they may appear in a message: letters and digits only. */
const id = (value: string) => value.replace(/[^A-Z0-9]/gi, '');

/** Whether `user` is a member of `channel` (cursor pages of 200, at most 50 pages). */
async function isMember(client: WebClient, channel: string, user: string): Promise<boolean> {
  let cursor: string | undefined;
  for (let page = 0; page < 50; page++) {
    const answer = await client.conversations.members({ channel, limit: 200, ...(cursor ? { cursor } : {}) });
    if (answer.members?.includes(user)) return true;
    cursor = answer.response_metadata?.next_cursor || undefined;
    if (!cursor) return false;
  }
  return false;
}

/**
 * Whether a schedule may post as its owner in its channel: the owner is still in the workspace and
 * in the channel, and the bot is in it. Checked when a schedule is set and before each run.
 */
export async function accessProblem(
  client: WebClient,
  owner: string,
  channel: string,
): Promise<AccessProblem> {
  try {
    const person = await client.users.info({ user: owner });
    if (person.user?.deleted) return `<@${id(owner)}> is no longer in this workspace`;
  } catch (error) {
    if (slackErrorCode(error) === 'user_not_found') return `<@${id(owner)}> is no longer in this workspace`;
    throw error;
  }
  try {
    const info = await client.conversations.info({ channel });
    // A direct message: only the owner's own with the bot (never someone else's).
    if (info.channel?.is_im || channel.startsWith('D'))
      return (info.channel as { user?: string } | undefined)?.user === owner
        ? undefined
        : `<#${id(channel)}> is not your direct message with the bot`;
    if (info.channel?.is_archived) return `<#${id(channel)}> was archived`;
    if (info.channel && info.channel.is_member === false)
      return `the bot is not in <#${id(channel)}> (invite it with /invite)`;
    if (!(await isMember(client, channel, owner))) return `<@${id(owner)}> is not in <#${id(channel)}>`;
  } catch (error) {
    const code = slackErrorCode(error);
    if (code === 'channel_not_found' || code === 'not_in_channel')
      return `the bot cannot see <#${id(channel)}> (invite it with /invite)`;
    throw error;
  }
  return undefined;
}

/** The workspace's admins and owners (people, not bots), for word that a schedule stopped. */
async function workspaceAdmins(client: WebClient): Promise<string[]> {
  const admins: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 20; page++) {
    const answer = await client.users.list({ limit: 200, ...(cursor ? { cursor } : {}) });
    for (const member of answer.members ?? [])
      if ((member.is_admin || member.is_owner) && !member.deleted && !member.is_bot && member.id)
        admins.push(member.id);
    cursor = answer.response_metadata?.next_cursor || undefined;
    if (!cursor) break;
  }
  return admins;
}

/** The first line of a scheduled answer: whose schedule, when, and the question. */
export function runHeader(schedule: ScheduleRecord, dueAt: Date): string {
  return `⏰ <@${id(schedule.owner)}> の定期実行（${escapeSlackText(schedule.description)}・${localTime(dueAt, schedule.timeZone)}）: ${escapeSlackText(schedule.question).slice(0, 300)}`;
}

/**
 * Runs schedules' occurrences in Slack, each as a turn of the person who set it: their workspace's
 * servers and credentials through their own view, their budgets, the audit under their name. A write
 * asks them in a direct message (unless they approved that tool for the schedule); the answer is posted
 * once in the schedule's channel. What goes wrong is told to them in a direct message; a schedule whose
 * owner left, or lost the channel, stops and the workspace's admins are told.
 */
export class ScheduledRuns {
  constructor(private readonly options: ScheduledRunsOptions) {}

  async run(occurrence: Occurrence): Promise<OccurrenceResult> {
    const { schedule, dueAt } = occurrence;
    const { logger } = this.options;
    const client = await this.options.clientFor(schedule.workspace);
    if (!client) return { state: 'failed', detail: 'the app is not installed in this workspace any more' };
    const problem = await accessProblem(client, schedule.owner, schedule.channel);
    if (problem) {
      await this.stop(client, schedule, problem);
      return { state: 'skipped', detail: `stopped: ${problem}` };
    }
    const person = { workspace: schedule.workspace, user: schedule.owner };
    const view = await this.options.people.viewFor(person);
    let direct: Promise<{ channel: string; ts: string }> | undefined;
    // The owner's direct message for this run, opened on the first thing to tell them.
    const directThread = () => {
      direct ??= this.openDirect(client, schedule, dueAt);
      return direct;
    };
    const approve = async (request: ApprovalRequest): Promise<ApprovalDecision> => {
      if (!request.sampling && schedule.approvedTools.includes(request.name))
        return { outcome: 'approved', by: schedule.owner };
      const thread = await directThread();
      return this.options.approvals.ask(request, {
        channel: thread.channel,
        threadTs: thread.ts,
        asker: schedule.owner,
        workspace: schedule.workspace,
        client,
        signal: occurrence.signal,
      });
    };
    const images: Array<{ tool: string; images: ImageContent[] }> = [];
    const detached: Array<{ tool: string; taskId: string; label: string }> = [];
    const needsCredential = new Set<string>();
    let result: Awaited<ReturnType<ChatService['respond']>>;
    try {
      result = await this.options.chat.respond({
        ...(view ? { tools: view } : {}),
        history: [],
        userMessage: schedule.question,
        approve,
        signal: occurrence.signal,
        ...(this.options.onTaskDetached ? { detachTasks: true } : {}),
        onEvent: (event) => {
          if (event.type === 'task_detached')
            detached.push({ tool: event.name, taskId: event.taskId, label: event.tool ?? event.name });
          else if (event.type === 'tool_images')
            images.push({ tool: event.tool ?? event.name, images: event.images });
          else if (event.type === 'credential_needed') needsCredential.add(event.server);
        },
      });
    } catch (error) {
      // The replica stops: the run is left for another to take over (nothing was posted).
      if (occurrence.signal.aborted) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      await this.tell(
        client,
        directThread,
        `⚠️ 定期実行「${escapeSlackText(schedule.description)}」は失敗しました: ${escapeSlackText(reason).slice(0, 500)}`,
      );
      return { state: 'failed', detail: reason.slice(0, 300) };
    }
    if (result.refused) {
      // A budget or the rate refused the run: nothing is posted; the owner is told why.
      await this.tell(
        client,
        directThread,
        `⚠️ 定期実行「${escapeSlackText(schedule.description)}」は実行されませんでした（失敗しました）: ${escapeSlackText(result.text).slice(0, 500)}`,
      );
      return { state: 'failed', detail: result.text.slice(0, 300) };
    }
    if (!(await occurrence.beginPosting()))
      return { state: 'skipped', detail: 'paused or deleted while it ran; nothing was posted' };
    const chunks = splitMessage(markdownToMrkdwn(result.text.trim() || '（回答が空でした）'));
    const header = runHeader(schedule, dueAt);
    let ts: string;
    try {
      const posted = await client.chat.postMessage({
        channel: schedule.channel,
        text: `${header}\n\n${chunks[0] ?? ''}`,
        unfurl_links: false,
      });
      ts = posted.ts as string;
    } catch (error) {
      const code = slackErrorCode(error) ?? String(error);
      await this.tell(
        client,
        directThread,
        `⚠️ 定期実行「${escapeSlackText(schedule.description)}」の回答を <#${id(schedule.channel)}> に投稿できませんでした (${escapeSlackText(code)})。`,
      );
      return { state: 'failed', detail: `Slack refused the post: ${code}` };
    }
    for (const chunk of chunks.slice(1))
      await client.chat
        .postMessage({ channel: schedule.channel, thread_ts: ts, text: chunk })
        .catch((error: unknown) =>
          logger.warn({ schedule: schedule.id, error }, 'could not post the rest of a scheduled answer'),
        );
    if (images.length > 0) {
      const files = new ToolFiles(client, logger, schedule.channel, ts);
      for (const entry of images) files.add(entry.tool, entry.images);
      await files.settled();
    }
    for (const task of detached)
      await this.options
        .onTaskDetached?.(
          client,
          { workspace: schedule.workspace, person: schedule.owner, channel: schedule.channel, threadTs: ts },
          task,
        )
        .catch((error: unknown) =>
          logger.warn({ schedule: schedule.id, error }, 'could not record a task that goes on'),
        );
    const failed = result.trace.filter((entry) => !entry.ok).map((entry) => entry.name);
    if (needsCredential.size > 0 || failed.length > 0)
      await this.tell(
        client,
        directThread,
        [
          `⚠️ 定期実行「${escapeSlackText(schedule.description)}」は投稿されましたが、うまくいかなかったことがあります:`,
          ...[...needsCredential].map(
            (server) =>
              `• \`${escapeSlackText(server)}\` にはあなたの接続が必要です（未接続か、期限切れ・取り消し）`,
          ),
          ...failed.map(
            (name) => `• ツール \`${escapeSlackText(name)}\` が失敗しました（サーバーの停止など）`,
          ),
        ].join('\n'),
        // A Reconnect button per server, as under an answer (it opens the connect form or sign-in).
        [...needsCredential]
          .slice(0, 5)
          .map((server) => button(`Reconnect ${server}`, credentialActions.connectButton, server, 'primary')),
      );
    return { state: 'posted', messageTs: ts, detail: `posted in <#${id(schedule.channel)}>` };
  }

  /** Tells the owner that a replica stopped while posting this occurrence (it is not posted again). */
  async interrupted(schedule: ScheduleRecord, dueAt: Date): Promise<void> {
    const client = await this.options.clientFor(schedule.workspace);
    if (!client) return;
    await this.tell(
      client,
      () => this.openDirect(client, schedule, dueAt),
      '⚠️ この回は投稿の途中でボットが止まりました。二重に投稿しないよう、再投稿はしていません。チャンネルを確認してください。',
    );
  }

  /** Stops a schedule that can no longer run as its owner there, and tells the owner and the admins. */
  private async stop(client: WebClient, schedule: ScheduleRecord, problem: string): Promise<void> {
    const { logger } = this.options;
    await this.options.schedules.setState(schedule.id, 'stopped', { reason: problem });
    logger.warn(
      { schedule: schedule.id, workspace: schedule.workspace },
      'a schedule stopped: its owner lost access',
    );
    const text = `⏹ <@${id(schedule.owner)}> の定期実行「${escapeSlackText(schedule.description)}」（<#${id(schedule.channel)}>）を止めました: ${problem}`;
    const admins = await workspaceAdmins(client).catch((error: unknown) => {
      logger.warn({ error }, 'could not list the workspace admins');
      return [] as string[];
    });
    for (const admin of new Set([...admins, schedule.owner]))
      await client.chat
        .postMessage({ channel: admin, text })
        .catch((error: unknown) =>
          logger.warn({ schedule: schedule.id, error }, 'could not tell of a stopped schedule'),
        );
  }

  /** Opens the owner's direct message with the bot and starts this run's thread there. */
  private async openDirect(
    client: WebClient,
    schedule: ScheduleRecord,
    dueAt: Date,
  ): Promise<{ channel: string; ts: string }> {
    const opened = await client.conversations.open({ users: schedule.owner });
    const channel = opened.channel?.id ?? schedule.owner;
    const posted = await client.chat.postMessage({ channel, text: runHeader(schedule, dueAt) });
    return { channel, ts: posted.ts as string };
  }

  private async tell(
    client: WebClient,
    thread: () => Promise<{ channel: string; ts: string }>,
    text: string,
    buttons: Array<ReturnType<typeof button>> = [],
  ): Promise<void> {
    try {
      const place = await thread();
      await client.chat.postMessage({
        channel: place.channel,
        thread_ts: place.ts,
        text,
        ...(buttons.length > 0
          ? {
              blocks: [
                { type: 'section', text: { type: 'mrkdwn', text: text.slice(0, 3000) } },
                { type: 'actions', block_id: 'credential', elements: buttons },
              ],
            }
          : {}),
      });
    } catch (error) {
      this.options.logger.warn({ error }, 'could not tell a schedule’s owner');
    }
  }
}
