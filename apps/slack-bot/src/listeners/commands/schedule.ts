import type { PersonRef } from '@ai-assistant/assistant';
import { nextOccurrence, readScheduleTimes, ScheduleWordsError } from '@ai-assistant/assistant';
import type { Store } from '@ai-assistant/store';
import type { App } from '@slack/bolt';
import {
  checkProposal,
  createFromProposal,
  ownerSetsState,
  scheduleLines,
  stoppedByAdmin,
  timeZoneOf,
  whenLine,
} from '../../slack/schedules.js';

type WebClient = App['client'];

export const scheduleUsage = [
  '`/assistant schedule <when> | <question>` — ask it on a schedule in this channel, as you (e.g. `/assistant schedule 毎朝8時 | 東京の天気を教えて`; `<when>`: words such as 平日 9:30, 毎週月曜 10時, every weekday at 8am, or five cron fields; in your Slack time zone)',
  '`/assistant schedule list` — your schedules here (also in my App Home)',
  '`/assistant schedule pause|resume|delete|run <id>` — by the id the list shows',
  '`/assistant schedule edit <id> <when>` — change when it runs',
].join('\n');

/** `/assistant schedule …`: returns the ephemeral answer. */
export async function scheduleCommand(
  text: string,
  person: PersonRef,
  channel: string,
  client: WebClient,
  store: Pick<Store, 'schedules'>,
  now: Date,
): Promise<string> {
  const [verb = '', target = '', ...rest] = text.trim().split(/\s+/);
  const mine = await store.schedules.ofOwner(person.workspace, person.user);
  if (!text.trim() || verb === 'list' || verb === 'help')
    return mine.length > 0
      ? `${mine.map((schedule) => scheduleLines(schedule)).join('\n\n')}\n\n${scheduleUsage}`
      : `You have no schedules.\n${scheduleUsage}`;
  if (['pause', 'resume', 'delete', 'run', 'edit'].includes(verb) && !text.includes('|')) {
    const found = mine.filter((schedule) => target.length >= 4 && schedule.id.startsWith(target));
    const schedule = found[0];
    if (!schedule || found.length > 1)
      return `No schedule of yours has the id \`${target.replace(/`/g, '')}\` (\`/assistant schedule list\` shows them).`;
    if (verb === 'delete') {
      await store.schedules.delete(schedule.id);
      return `🗑 Deleted: ${schedule.description}.`;
    }
    if (stoppedByAdmin(schedule) && verb !== 'edit')
      return `⏹ ${schedule.description} was stopped by an admin: you can delete it (\`/assistant schedule delete ${schedule.id.slice(0, 8)}\`), not ${verb} it.`;
    if (verb === 'pause')
      return (await ownerSetsState(store, schedule.id, { state: 'paused' }))
        ? `⏸ Paused: ${schedule.description}.`
        : `${schedule.description} cannot be paused now.`;
    if (verb === 'run')
      return (await ownerSetsState(store, schedule.id, { state: 'active', nextRunAt: now, runNow: true }))
        ? `▶️ ${schedule.description} runs now.`
        : `${schedule.description} is not active: resume it first (\`/assistant schedule resume ${schedule.id.slice(0, 8)}\`).`;
    const words = verb === 'edit' ? rest.join(' ') : schedule.description;
    const timeZone = verb === 'edit' ? await timeZoneOf(client, person.user) : schedule.timeZone;
    try {
      const times =
        verb === 'edit' ? readScheduleTimes(words, timeZone) : { cron: schedule.cron, description: words };
      const next = nextOccurrence(times.cron, timeZone, now);
      if (!next) return 'That schedule never runs again.';
      if (verb === 'edit')
        await store.schedules.reschedule(schedule.id, { ...times, timeZone, nextRunAt: next });
      else if (!(await ownerSetsState(store, schedule.id, { state: 'active', nextRunAt: next })))
        return `${schedule.description} cannot be resumed now.`;
      return `✅ ${whenLine(times.description, times.cron, timeZone, next)}`;
    } catch (error) {
      if (error instanceof ScheduleWordsError) return error.message;
      throw error;
    }
  }
  const bar = text.indexOf('|');
  if (bar === -1) return scheduleUsage;
  try {
    const proposal = await checkProposal(
      client,
      person.user,
      person.workspace,
      { when: text.slice(0, bar), question: text.slice(bar + 1) },
      channel,
    );
    if (!proposal.question) return `Say what to ask after the \`|\`.\n${scheduleUsage}`;
    const created = await createFromProposal(store, proposal, [], now);
    if (typeof created === 'string') return created;
    return `✅ Scheduled: ${whenLine(created.description, created.cron, created.timeZone, created.nextRunAt)} in <#${created.channel}>. Each run is yours (your servers, credentials, budgets); a write asks you in a DM. Manage it with \`/assistant schedule list\` or in my App Home.`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
