import { randomUUID } from 'node:crypto';
import {
  localTime,
  nextOccurrence,
  readScheduleTimes,
  type ScheduleProposal,
  type ScheduleProposer,
} from '@ai-assistant/assistant';
import type { Logger } from '@ai-assistant/host-core';
import { maxSchedulesPerPerson, type ScheduleRecord, type Store } from '@ai-assistant/store';
import type { App } from '@slack/bolt';
import { escapeSlackText } from '../format/slack-text.js';
import { button } from './buttons.js';
import { accessProblem } from './scheduled-runs.js';

type WebClient = App['client'];
type Block = Record<string, unknown>;

/** Action ids of the schedules' buttons (each value is a proposal's or a schedule's id). */
export const scheduleActions = {
  confirm: 'schedule_confirm',
  confirmWithTools: 'schedule_confirm_tools',
  cancel: 'schedule_cancel',
  pause: 'home_schedule_pause',
  resume: 'home_schedule_resume',
  runNow: 'home_schedule_run',
  remove: 'home_schedule_delete',
  stop: 'home_schedule_stop',
} as const;

/** The sealed records' kind of a proposal waiting for its person's Confirm. */
export const proposalKind = 'schedule-proposal';
/** A proposal not confirmed within a day is gone. */
export const proposalTtlMs = 24 * 3_600_000;

/** A proposal as kept until its person presses Confirm or Cancel. */
export interface StoredProposal {
  workspace: string;
  owner: string;
  channel: string;
  question: string;
  cron: string;
  timeZone: string;
  description: string;
  /** Tools the proposal names that ask for approval in the owner's view (offered for pre-approval). */
  writeTools: string[];
  /** Where the Confirm message is, to update it once pressed. */
  message?: { channel: string; ts: string };
  createdAt: string;
}

/** Slack ids as they may appear in a message: letters and digits only. */
const id = (value: string) => value.replace(/[^A-Z0-9]/gi, '');

/** The person's time zone as Slack knows it (`users.info`'s `tz`), else UTC. */
export async function timeZoneOf(client: WebClient, user: string): Promise<string> {
  const info = await client.users.info({ user }).catch(() => undefined);
  const zone = (info?.user as { tz?: string } | undefined)?.tz;
  return zone?.trim() || 'UTC';
}

/** A schedule's times in one line: its words, zone and next run. */
export function whenLine(
  description: string,
  cron: string,
  timeZone: string,
  next: Date | undefined,
): string {
  return `${escapeSlackText(description)} (\`${cron}\`, ${escapeSlackText(timeZone)}) · next: ${next ? localTime(next, timeZone) : 'none'}`;
}

/** The message asking a person to confirm a proposed schedule. */
export function proposalBlocks(
  proposalId: string,
  proposal: StoredProposal,
  next: Date | undefined,
): Block[] {
  const lines = [
    `⏰ *Schedule this?* (only <@${id(proposal.owner)}> can confirm)`,
    `*When:* ${whenLine(proposal.description, proposal.cron, proposal.timeZone, next)}`,
    `*Posts in:* <#${id(proposal.channel)}>`,
    `*Asks:* ${escapeSlackText(proposal.question).slice(0, 500)}`,
    proposal.writeTools.length > 0
      ? `Tools that ask before they run: ${proposal.writeTools.map((tool) => `\`${escapeSlackText(tool)}\``).join(', ')}. Confirm alone, and each run asks you in a DM; or approve them for this schedule now.`
      : 'Each run is yours: your servers, credentials and budgets; a write asks you in a DM.',
  ];
  return [
    { type: 'section', text: { type: 'mrkdwn', text: lines.join('\n').slice(0, 3000) } },
    {
      type: 'actions',
      block_id: `schedule:${proposalId}`,
      elements: [
        button('Confirm', scheduleActions.confirm, proposalId, 'primary'),
        ...(proposal.writeTools.length > 0
          ? [button('Confirm and approve those tools', scheduleActions.confirmWithTools, proposalId)]
          : []),
        button('Cancel', scheduleActions.cancel, proposalId),
      ],
    },
  ];
}

/** One schedule's lines for its owner or an admin. */
export function scheduleLines(schedule: ScheduleRecord, withOwner = false): string {
  const state =
    schedule.state === 'paused'
      ? ' — _paused_'
      : schedule.state === 'stopped'
        ? ` — _stopped: ${escapeSlackText(schedule.stoppedReason ?? 'by an admin')}_`
        : '';
  const last = schedule.lastStatus
    ? `last: ${schedule.lastStatus}${schedule.lastRunAt ? ` ${localTime(schedule.lastRunAt, schedule.timeZone)}` : ''}${schedule.lastDetail ? ` (${escapeSlackText(schedule.lastDetail).slice(0, 200)})` : ''}`
    : 'not run yet';
  return [
    `*${escapeSlackText(schedule.description)}*${withOwner ? ` by <@${id(schedule.owner)}>` : ''} in <#${id(schedule.channel)}>${state}`,
    `${escapeSlackText(schedule.question).slice(0, 200)}`,
    `next: ${schedule.nextRunAt ? localTime(schedule.nextRunAt, schedule.timeZone) : '—'} (${escapeSlackText(schedule.timeZone)}) · ${last} · id \`${schedule.id.slice(0, 8)}\``,
  ].join('\n');
}

/** How the reason of a schedule an admin stopped begins (what `stoppedByAdmin` reads back). */
const adminStop = 'stopped by admin ';

/** Why a schedule an admin stopped is stopped. */
export const adminStopReason = (admin: string) => `${adminStop}${admin}`;

/** An admin's Stop holds: its owner may delete the schedule, not resume it or run it. */
export const stoppedByAdmin = (schedule: ScheduleRecord) =>
  schedule.state === 'stopped' && (schedule.stoppedReason ?? '').startsWith(adminStop);

/**
 * The owner changes a schedule's state (pause, resume, run now), guarded in the store's own statement:
 * an admin's Stop stays, and Run now applies to an active schedule only. Whether it changed.
 */
export function ownerSetsState(
  store: Pick<Store, 'schedules'>,
  id: string,
  change: { state: 'active' | 'paused'; nextRunAt?: Date; runNow?: boolean },
): Promise<boolean> {
  return store.schedules.setState(id, change.state, {
    keepStopsWith: adminStop,
    ...(change.nextRunAt ? { nextRunAt: change.nextRunAt } : {}),
    ...(change.runNow ? { from: ['active'] } : {}),
  });
}

/** The owner's buttons: Pause or Resume, Run now (an active schedule's), Delete; only Delete after an admin's Stop. */
function ownerButtons(schedule: ScheduleRecord) {
  const remove = button('Delete', scheduleActions.remove, schedule.id, 'danger');
  if (stoppedByAdmin(schedule)) return [remove];
  if (schedule.state !== 'active') return [button('Resume', scheduleActions.resume, schedule.id), remove];
  return [
    button('Pause', scheduleActions.pause, schedule.id),
    button('Run now', scheduleActions.runNow, schedule.id),
    remove,
  ];
}

/** The App Home's schedules: the person's own with their buttons; for admins, the workspace's with Stop. */
export function scheduleHomeBlocks(mine: ScheduleRecord[], workspace?: ScheduleRecord[]): Block[] {
  const blocks: Block[] = [
    { type: 'divider' },
    { type: 'header', text: { type: 'plain_text', text: 'Your schedules' } },
  ];
  if (mine.length === 0)
    blocks.push({
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: 'None yet. Ask me ("毎朝8時に#generalで東京の天気を教えて") or use `/assistant schedule <when> | <question>`.',
        },
      ],
    });
  for (const schedule of mine.slice(0, 10)) {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: scheduleLines(schedule).slice(0, 3000) } });
    blocks.push({
      type: 'actions',
      block_id: `schedule:${schedule.id}`,
      elements: ownerButtons(schedule),
    });
  }
  const others = (workspace ?? []).filter((schedule) => !mine.some((own) => own.id === schedule.id));
  if (workspace && others.length > 0) {
    blocks.push({ type: 'header', text: { type: 'plain_text', text: 'Workspace schedules' } });
    for (const schedule of others.slice(0, 10))
      blocks.push({
        type: 'section',
        text: { type: 'mrkdwn', text: scheduleLines(schedule, true).slice(0, 3000) },
        ...(schedule.state === 'stopped'
          ? {}
          : { accessory: button('Stop', scheduleActions.stop, schedule.id, 'danger') }),
      });
  }
  return blocks;
}

/** Reads a stored proposal (undefined when gone or expired). */
export async function readProposal(
  store: Pick<Store, 'sealed'>,
  proposalId: string,
): Promise<StoredProposal | undefined> {
  const text = await store.sealed.get(proposalKind, proposalId);
  if (!text) return undefined;
  const proposal = JSON.parse(text) as StoredProposal;
  return Date.now() - Date.parse(proposal.createdAt) > proposalTtlMs ? undefined : proposal;
}

/** Creates the schedule a proposal describes (its first run from now); undefined past the person's limit. */
export async function createFromProposal(
  store: Pick<Store, 'schedules'>,
  proposal: StoredProposal,
  approvedTools: string[],
  now: Date = new Date(),
): Promise<ScheduleRecord | string> {
  if ((await store.schedules.countOf(proposal.workspace, proposal.owner)) >= maxSchedulesPerPerson)
    return `You have ${maxSchedulesPerPerson} schedules already (the most one person may have): delete one in App Home first.`;
  const next = nextOccurrence(proposal.cron, proposal.timeZone, now);
  if (!next) return 'That schedule never runs again.';
  return store.schedules.create({
    workspace: proposal.workspace,
    owner: proposal.owner,
    channel: proposal.channel,
    question: proposal.question,
    cron: proposal.cron,
    timeZone: proposal.timeZone,
    description: proposal.description,
    approvedTools,
    nextRunAt: next,
  });
}

/** Checks what a person asks to schedule: their times, and that they and the bot may post there. */
export async function checkProposal(
  client: WebClient,
  owner: string,
  workspace: string,
  proposal: ScheduleProposal,
  fallbackChannel: string,
): Promise<StoredProposal> {
  const timeZone = await timeZoneOf(client, owner);
  const times = readScheduleTimes(proposal.when, timeZone);
  const channel = (proposal.channel ?? fallbackChannel)
    .replace(/^<#([A-Z0-9]+)(\|[^>]*)?>$/i, '$1')
    .replace(/^#/, '');
  if (!/^[CGD][A-Z0-9]{2,}$/i.test(channel))
    throw new Error(
      `"${proposal.channel}" is not a channel id (such as C0123ABCD); ask the person to name the channel with #.`,
    );
  const problem = await accessProblem(client, owner, channel);
  if (problem) throw new Error(`Cannot schedule there: ${problem.replace(/<[@#]([A-Z0-9]+)>/gi, '$1')}.`);
  return {
    workspace,
    owner,
    channel,
    question: proposal.question.trim().slice(0, 2000),
    cron: times.cron,
    timeZone,
    description: times.description.slice(0, 200),
    writeTools: [],
    createdAt: new Date().toISOString(),
  };
}

/**
 * One asker's proposals in Slack (the host tool `host__propose_schedule`): checked, kept sealed for a
 * day, and posted in their thread with Confirm / Cancel that only they may press.
 */
export class SlackScheduleProposer implements ScheduleProposer {
  constructor(
    private readonly options: {
      client: WebClient;
      store: Pick<Store, 'sealed'>;
      logger: Logger;
      workspace: string;
      owner: string;
      /** Where the asker is: the default channel, and where the Confirm message goes. */
      place: { channel: string; threadTs?: string };
      /** The asker's tools that ask before they run (those a proposal names are offered for pre-approval). */
      writeTools: () => string[];
    },
  ) {}

  async propose(proposal: ScheduleProposal): Promise<string> {
    const { client, workspace, owner, place } = this.options;
    const checked = await checkProposal(client, owner, workspace, proposal, place.channel);
    // Only the tools the proposal names that ask in the asker's own view: never their whole catalog.
    const asking = new Set(this.options.writeTools());
    checked.writeTools = (proposal.tools ?? []).filter((tool) => asking.has(tool)).slice(0, 10);
    const proposalId = randomUUID();
    const next = nextOccurrence(checked.cron, checked.timeZone, new Date());
    const posted = await client.chat.postMessage({
      channel: place.channel,
      ...(place.threadTs ? { thread_ts: place.threadTs } : {}),
      text: `⏰ Schedule this? ${checked.description}: ${checked.question}`.slice(0, 3000),
      blocks: proposalBlocks(proposalId, checked, next) as never,
    });
    checked.message = { channel: place.channel, ts: posted.ts as string };
    await this.options.store.sealed.put(proposalKind, proposalId, { workspace }, JSON.stringify(checked));
    return `Proposed to the user: "${checked.question}" ${checked.description} (cron ${checked.cron}, ${checked.timeZone}; next run ${next ? localTime(next, checked.timeZone) : 'none'}) in channel ${checked.channel}. It does not exist until they press Confirm under the message just posted; tell them so.`;
  }
}
