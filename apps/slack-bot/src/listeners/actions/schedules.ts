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
  adminStopReason,
  checkProposal,
  createFromProposal,
  ownerSetsState,
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
          await store.schedules.setState(schedule.id, 'stopped', { reason: adminStopReason(person.user) });
        else
          logger.warn(
            { ...person, schedule: schedule.id },
            'a schedule stop from someone who is not an admin was refused',
          );
      } else if (schedule.owner !== person.user) {
        logger.warn({ ...person, schedule: schedule.id }, 'a press on someone else’s schedule was refused');
      } else if (kind === 'remove') await store.schedules.delete(schedule.id);
      else {
        // The store checks the state in the same statement: an admin's Stop holds (the owner may only
        // delete it), and a paused schedule runs once it is resumed.
        const next = kind === 'resume' ? nextOccurrence(schedule.cron, schedule.timeZone, now) : undefined;
        const changed =
          kind === 'pause'
            ? await ownerSetsState(store, schedule.id, { state: 'paused' })
            : kind === 'runNow'
              ? await ownerSetsState(store, schedule.id, { state: 'active', nextRunAt: now, runNow: true })
              : next !== undefined &&
                (await ownerSetsState(store, schedule.id, { state: 'active', nextRunAt: next }));
        if (changed && kind === 'runNow') dependencies.wake?.();
        if (!changed)
          logger.warn(
            { ...person, schedule: schedule.id, action: kind, state: schedule.state },
            'a schedule action its state does not allow was refused',
          );
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

/** The "繰り返す" message shortcut and its modal. */
export const repeatShortcut = { callbackId: 'schedule_repeat', modal: 'schedule_repeat_modal' } as const;

/** The question behind a message: a person's own text, or (on an answer) the question it answered. */
async function questionBehind(
  store: Pick<Store, 'conversations'>,
  workspace: string,
  channel: string,
  message: { ts: string; thread_ts?: string; text?: string; bot_id?: string },
): Promise<string> {
  const own = (message.text ?? '').replace(/<@[A-Z0-9]+>\s*/g, '').trim();
  if (!message.bot_id) return own;
  const thread = `${channel}:${message.thread_ts ?? message.ts}`;
  const recorded = await store.conversations.thread(workspace, thread, 200).catch(() => []);
  const asked = recorded.filter((entry) => entry.role === 'user' && entry.id < message.ts).at(-1);
  return (asked?.text ?? '').replace(/<@[A-Z0-9]+>\s*/g, '').trim();
}

/** The modal asking when to repeat a question (the question itself editable). */
function repeatModal(channel: string, question: string) {
  return {
    type: 'modal' as const,
    callback_id: repeatShortcut.modal,
    private_metadata: JSON.stringify({ channel }),
    title: { type: 'plain_text' as const, text: '定期実行にする' },
    submit: { type: 'plain_text' as const, text: '設定' },
    close: { type: 'plain_text' as const, text: 'やめる' },
    blocks: [
      {
        type: 'input',
        block_id: 'when',
        label: { type: 'plain_text', text: 'いつ' },
        hint: {
          type: 'plain_text',
          text: '毎朝8時、平日 9:30、毎週月曜 10時、0 8 * * 1-5 など。あなたのタイムゾーンで読みます。',
        },
        element: {
          type: 'plain_text_input',
          action_id: 'value',
          placeholder: { type: 'plain_text', text: '毎朝8時' },
        },
      },
      {
        type: 'input',
        block_id: 'question',
        label: { type: 'plain_text', text: '質問' },
        element: {
          type: 'plain_text_input',
          action_id: 'value',
          multiline: true,
          max_length: 2000,
          ...(question ? { initial_value: question.slice(0, 2000) } : {}),
        },
      },
    ],
  };
}

/** Registers "繰り返す": a message shortcut opening the modal, and the modal's submission (the person's confirmation). */
export function registerRepeat(
  app: App,
  dependencies: ScheduleActionDependencies & { store: Pick<Store, 'conversations'> },
): void {
  app.shortcut(repeatShortcut.callbackId, async ({ ack, shortcut, client }) => {
    await ack();
    if (shortcut.type !== 'message_action') return;
    try {
      const workspace = shortcut.team?.id ?? shortcut.user.team_id ?? '';
      const question = await questionBehind(
        dependencies.store,
        workspace,
        shortcut.channel.id,
        shortcut.message as never,
      );
      await client.views.open({
        trigger_id: shortcut.trigger_id,
        view: repeatModal(shortcut.channel.id, question) as never,
      });
    } catch (error) {
      dependencies.logger.warn({ error }, 'could not open the repeat modal');
    }
  });
  app.view(repeatShortcut.modal, async ({ ack, body, view, client }) => {
    const value = (block: string) => String(view.state.values[block]?.value?.value ?? '').trim();
    const person = personOf({ team: body.team?.id ?? body.user.team_id, user: body.user.id });
    let channel = '';
    try {
      channel = String((JSON.parse(view.private_metadata || '{}') as { channel?: unknown }).channel ?? '');
    } catch {
      // A forged submission: no channel, refused below.
    }
    try {
      const proposal = await checkProposal(
        client,
        person.user,
        person.workspace,
        { when: value('when'), question: value('question') },
        channel,
      );
      if (!proposal.question) {
        await ack({ response_action: 'errors', errors: { question: '質問を書いてください。' } });
        return;
      }
      const created = await createFromProposal(
        dependencies.store,
        proposal,
        [],
        dependencies.now?.() ?? new Date(),
      );
      if (typeof created === 'string') {
        await ack({ response_action: 'errors', errors: { when: created.slice(0, 150) } });
        return;
      }
      await ack({
        response_action: 'update',
        view: {
          type: 'modal',
          title: { type: 'plain_text', text: '定期実行にする' },
          close: { type: 'plain_text', text: '閉じる' },
          blocks: [
            {
              type: 'section',
              text: {
                type: 'mrkdwn',
                text: `✅ Scheduled: ${whenLine(created.description, created.cron, created.timeZone, created.nextRunAt)} in <#${created.channel}>.`,
              },
            },
          ],
        },
      });
    } catch (error) {
      await ack({
        response_action: 'errors',
        errors: { when: (error instanceof Error ? error.message : String(error)).slice(0, 150) },
      });
    }
  });
}
