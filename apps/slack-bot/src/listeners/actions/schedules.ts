import { nextOccurrence } from '@ai-assistant/assistant';
import type { Store } from '@ai-assistant/store';
import type {
  AllMiddlewareArgs,
  App,
  BlockAction,
  ButtonAction,
  SlackActionMiddlewareArgs,
} from '@slack/bolt';
import { escapeSlackText } from '../../format/slack-text.js';
import { isWorkspaceAdmin } from '../../slack/admins.js';
import { tellPrivately } from '../../slack/button-press.js';
import { personOf } from '../../slack/people.js';
import {
  createFromProposal,
  proposalKind,
  readProposal,
  scheduleActions,
  whenLine,
} from '../../slack/schedules.js';
import { type AppHomeDependencies, publish } from '../events/app-home.js';

/** What the schedules' buttons need: the App Home's dependencies (with the store's schedules and sealed records). */
export interface ScheduleActionDependencies extends AppHomeDependencies {
  store: AppHomeDependencies['store'] & Pick<Store, 'sealed'>;
  /** Tells the scheduler to look now (a schedule was set to run now). */
  wake?: () => void;
}

type Press = SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs;

/** Confirm / Cancel under a proposal: only its person may press; Confirm creates the schedule. */
function onProposal(
  kind: 'confirm' | 'confirmWithTools' | 'cancel',
  dependencies: ScheduleActionDependencies,
) {
  return async ({ ack, body, action, client }: Press) => {
    await ack();
    const { store, logger } = dependencies;
    const proposalId = action.value ?? '';
    const presser = body.user.id;
    try {
      const proposal = await readProposal(store, proposalId);
      const where = { channel: body.channel?.id ?? presser, user: presser };
      if (!proposal) {
        await tellPrivately(client, where, 'This proposal has expired or was already answered.', logger);
        return;
      }
      const team = body.team?.id ?? body.user.team_id;
      if (proposal.owner !== presser || (team && proposal.workspace !== team)) {
        await tellPrivately(
          client,
          where,
          `Only <@${proposal.owner.replace(/[^A-Z0-9]/gi, '')}> can confirm their schedule.`,
          logger,
        );
        return;
      }
      // Answered once: a second press (or another replica's) finds nothing.
      if (!(await store.sealed.delete(proposalKind, proposalId))) return;
      let line: string;
      if (kind === 'cancel') line = '✖️ Not scheduled.';
      else {
        const created = await createFromProposal(
          store,
          proposal,
          kind === 'confirmWithTools' ? proposal.writeTools : [],
          dependencies.now?.() ?? new Date(),
        );
        line =
          typeof created === 'string'
            ? `⚠️ ${created}`
            : `✅ Scheduled: ${whenLine(created.description, created.cron, created.timeZone, created.nextRunAt)} in <#${created.channel}>${created.approvedTools.length > 0 ? ` (approved for it: ${created.approvedTools.map((tool) => `\`${escapeSlackText(tool)}\``).join(', ')})` : ''}. Manage it in my App Home.`;
      }
      if (proposal.message)
        await client.chat.update({
          channel: proposal.message.channel,
          ts: proposal.message.ts,
          text: line,
          blocks: [],
        });
      await publish(client, personOf({ team: proposal.workspace, user: presser }), dependencies).catch(
        () => {},
      );
    } catch (error) {
      logger.warn({ error, action: kind }, 'a schedule proposal press failed');
    }
  };
}

/** The App Home's buttons on a schedule: its owner pauses, resumes, runs now or deletes; an admin stops any. */
function onSchedule(
  kind: 'pause' | 'resume' | 'runNow' | 'remove' | 'stop',
  dependencies: ScheduleActionDependencies,
) {
  return async ({ ack, body, action, client }: Press) => {
    await ack();
    const { store, logger } = dependencies;
    const person = personOf({ team: body.team?.id ?? body.user.team_id, user: body.user.id });
    try {
      const schedule = await store.schedules.get(action.value ?? '');
      if (!schedule || schedule.workspace !== person.workspace) return;
      const now = dependencies.now?.() ?? new Date();
      if (kind === 'stop') {
        // Checked with Slack now, whatever the view showed.
        if (await isWorkspaceAdmin(client, person.user))
          await store.schedules.setState(schedule.id, 'stopped', {
            reason: `stopped by admin ${person.user}`,
          });
        else
          logger.warn(
            { ...person, schedule: schedule.id },
            'a schedule stop from someone who is not an admin was refused',
          );
      } else if (schedule.owner !== person.user) {
        logger.warn({ ...person, schedule: schedule.id }, 'a press on someone else’s schedule was refused');
      } else if (kind === 'remove') await store.schedules.delete(schedule.id);
      else if (kind === 'pause') await store.schedules.setState(schedule.id, 'paused');
      else if (kind === 'runNow') {
        await store.schedules.setState(schedule.id, 'active', { nextRunAt: now });
        dependencies.wake?.();
      } else {
        const next = nextOccurrence(schedule.cron, schedule.timeZone, now);
        if (next) await store.schedules.setState(schedule.id, 'active', { nextRunAt: next });
      }
      await publish(client, person, dependencies);
    } catch (error) {
      logger.warn({ ...person, error, action: kind }, 'a schedule action failed');
    }
  };
}

/** Registers the schedules' buttons. */
export function register(app: App, dependencies: ScheduleActionDependencies): void {
  for (const kind of ['confirm', 'confirmWithTools', 'cancel'] as const)
    app.action<BlockAction<ButtonAction>>(scheduleActions[kind], onProposal(kind, dependencies));
  for (const kind of ['pause', 'resume', 'runNow', 'remove', 'stop'] as const)
    app.action<BlockAction<ButtonAction>>(scheduleActions[kind], onSchedule(kind, dependencies));
}
