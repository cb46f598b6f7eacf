import {
  completion,
  type FakeRequest,
  recordsServerPath,
  startTokenServer,
  type TokenServer,
  tokenOf,
  weatherModel,
} from '@ai-assistant/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { repeatShortcut } from '../src/listeners/actions/schedules.js';
import { approvalActions } from '../src/slack/approvals.js';
import { scheduleActions } from '../src/slack/schedules.js';
import { type Harness, mentionBot, openHome, publishedHome, startHarness, waitFor } from './harness.js';

let harness: Harness | undefined;
let remote: TokenServer | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  remote?.close();
  remote = undefined;
});

/** Waits until an async `check` gives something (bounded). */
async function eventually<T>(check: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 20));
  }
}

/** A clock the test moves: the scheduler, the loop and the store's retention read it. */
function testClock(iso: string) {
  let at = new Date(iso).getTime();
  return {
    now: () => new Date(at),
    set: (next: string) => {
      at = new Date(next).getTime();
    },
  };
}

// The test drives the scheduler's passes itself (`bot.schedules.tick()`); its own timer stays out of the way.
const fastTicks = { SCHEDULE_TICK_MS: '3600000' };

/** The bot's top-level scheduled posts in a channel. */
const scheduledPosts = (running: Harness, channel: string) =>
  running.slack
    .callsOf('chat.postMessage')
    .filter((call) => call.args.channel === channel && !call.args.thread_ts)
    .map((call) => ({ text: String(call.args.text ?? '') }))
    .filter((message) => message.text.startsWith('⏰ <@'));

/** Runs the command and returns the ephemeral answer. */
async function command(running: Harness, text: string, options: { channel?: string; user?: string } = {}) {
  const before = running.slack.responses.length;
  await running.slack.command(text, options);
  return String((await waitFor(() => running.slack.responses[before]))?.text ?? '');
}

describe('schedules', () => {
  it('#47 a question set in words runs at 08:00 Tokyo time as its owner, posts once in the channel, and moves to the next day', async () => {
    const clock = testClock('2026-11-27T22:00:00Z'); // 07:00 in Tokyo
    harness = await startHarness({ now: clock.now, env: fastTicks });
    const running = harness;
    const answer = await command(running, 'schedule 毎朝8時 | 東京の天気を教えて', { channel: 'C0GENERAL' });
    expect(answer).toContain('✅ Scheduled: 毎朝8時 (`0 8 * * *`, Asia/Tokyo) · next: 11/28(土) 08:00');
    const [schedule] = await running.store.schedules.ofOwner('T0001', 'UHUMAN01');
    expect(schedule).toMatchObject({ channel: 'C0GENERAL', nextRunAt: new Date('2026-11-27T23:00:00Z') });

    // 07:59:59 in Tokyo: nothing yet.
    clock.set('2026-11-27T22:59:59Z');
    expect(await running.bot.schedules.tick()).toMatchObject({ claimed: 0 });

    clock.set('2026-11-27T23:00:00Z');
    expect(await running.bot.schedules.tick()).toMatchObject({ claimed: 1 });
    const posted = await waitFor(() => scheduledPosts(running, 'C0GENERAL')[0]);
    expect(posted.text).toContain(
      '⏰ <@UHUMAN01> の定期実行（毎朝8時・11/28(土) 08:00）: 東京の天気を教えて',
    );
    expect(posted.text).toContain('気象庁の予報');
    const recorded = await eventually(async () => {
      const row = await running.store.schedules.get(schedule?.id ?? '');
      return row?.lastStatus === 'posted' ? row : undefined;
    });
    expect(recorded).toBeDefined();
    const row = await running.store.schedules.get(schedule?.id ?? '');
    expect(row).toMatchObject({ lastStatus: 'posted', nextRunAt: new Date('2026-11-28T23:00:00Z') });
    // The run was the owner's turn: the tool call is in the audit under their name.
    const audit = await running.store.audit.recent('T0001', { limit: 10 });
    expect(
      audit.some((entry) => entry.person === 'UHUMAN01' && String(entry.tool).includes('get_weather')),
    ).toBe(true);
    // Later passes the same day post nothing more.
    clock.set('2026-11-28T01:00:00Z');
    expect(await running.bot.schedules.tick()).toMatchObject({ claimed: 0 });
    await running.bot.schedules.settled();
    expect(scheduledPosts(running, 'C0GENERAL')).toHaveLength(1);
  }, 60_000);

  it('#47 in New York the same 08:00 follows daylight saving: 13:00 UTC before the spring change, 12:00 UTC after', async () => {
    const clock = testClock('2027-03-13T05:00:00Z'); // Saturday, midnight in New York (EST)
    harness = await startHarness({ now: clock.now, env: fastTicks });
    const running = harness;
    running.slack.setPerson('U0NEWYORK', { tz: 'America/New_York' });
    const answer = await command(running, 'schedule every day at 8am | 東京の天気を教えて', {
      channel: 'C0NY',
      user: 'U0NEWYORK',
    });
    expect(answer).toContain('America/New_York');
    const [made] = await running.store.schedules.ofOwner('T0001', 'U0NEWYORK');
    expect(made?.nextRunAt).toEqual(new Date('2027-03-13T13:00:00Z'));
    clock.set('2027-03-13T13:00:00Z');
    expect(await running.bot.schedules.tick()).toMatchObject({ claimed: 1 });
    await running.bot.schedules.settled();
    // Clocks go forward on 2027-03-14: the next 08:00 is an hour earlier in UTC.
    expect((await running.store.schedules.get(made?.id ?? ''))?.nextRunAt).toEqual(
      new Date('2027-03-14T12:00:00Z'),
    );
    expect(scheduledPosts(running, 'C0NY')).toHaveLength(1);
  }, 60_000);

  it('#47 the model proposes, only the asker confirms; paused and deleted schedules never run', async () => {
    const clock = testClock('2026-11-27T22:00:00Z');
    harness = await startHarness({ now: clock.now, env: fastTicks });
    const running = harness;
    running.llm.respondWith((request: FakeRequest) => {
      const messages = (request.body.messages ?? []) as Array<{ role: string; content: string | null }>;
      const tools = ((request.body.tools ?? []) as Array<{ function: { name: string } }>).map(
        (tool) => tool.function.name,
      );
      const last = messages.at(-1);
      if (last?.role === 'tool') return completion(request, { text: `提案しました: ${last.content}` });
      const question = messages.filter((message) => message.role === 'user').at(-1)?.content ?? '';
      if (question.includes('毎朝') && tools.includes('host__propose_schedule'))
        return completion(request, {
          toolCall: {
            name: 'host__propose_schedule',
            arguments: { when: '毎朝8時', question: '東京の天気を教えて' },
          },
        });
      return weatherModel(request);
    });
    const asked = await mentionBot(running, 'C0TEAM', '毎朝8時に東京の天気を教えて');
    const proposal = await waitFor(() =>
      running.slack
        .thread('C0TEAM', asked.ts)
        .find((message) => JSON.stringify(message.blocks ?? []).includes(scheduleActions.confirm)),
    );
    const proposalId = String(
      (proposal.blocks as Array<{ elements?: Array<{ value?: string }> }>).find((block) => block.elements)
        ?.elements?.[0]?.value,
    );
    // Nothing exists before the confirm; someone else's press is refused.
    expect(await running.store.schedules.ofWorkspace('T0001')).toEqual([]);
    await running.slack.press({
      channel: 'C0TEAM',
      messageTs: proposal.ts,
      actionId: scheduleActions.confirm,
      value: proposalId,
      user: 'U0MALLORY',
    });
    await waitFor(() =>
      running.slack
        .callsOf('chat.postEphemeral')
        .find((call) => String(call.args.text).includes('can confirm their schedule')),
    );
    expect(await running.store.schedules.ofWorkspace('T0001')).toEqual([]);
    await running.slack.press({
      channel: 'C0TEAM',
      messageTs: proposal.ts,
      actionId: scheduleActions.confirm,
      value: proposalId,
    });
    const made = await eventually(async () => (await running.store.schedules.ofWorkspace('T0001'))[0]);
    expect(made).toMatchObject({
      owner: 'UHUMAN01',
      channel: 'C0TEAM',
      cron: '0 8 * * *',
      timeZone: 'Asia/Tokyo',
    });

    // Paused: 08:00 passes with no post. Then deleted: the next 08:00 passes with none either.
    const paused = await command(running, `schedule pause ${made?.id.slice(0, 8)}`);
    expect(paused).toContain('Paused');
    clock.set('2026-11-27T23:00:30Z');
    expect(await running.bot.schedules.tick()).toMatchObject({ claimed: 0 });
    expect(await command(running, `schedule resume ${made?.id.slice(0, 8)}`)).toContain(
      'next: 11/29(日) 08:00',
    );
    expect(await command(running, `schedule delete ${made?.id.slice(0, 8)}`)).toContain('Deleted');
    clock.set('2026-11-28T23:00:30Z');
    expect(await running.bot.schedules.tick()).toMatchObject({ claimed: 0 });
    await running.bot.schedules.settled();
    expect(scheduledPosts(running, 'C0TEAM')).toEqual([]);
    expect(await running.store.schedules.ofWorkspace('T0001')).toEqual([]);
  }, 60_000);

  it('#47 a write in a run asks its owner by DM; a run uses the owner’s own credential, never another person’s', async () => {
    remote = await startTokenServer();
    const clock = testClock('2026-11-27T22:00:00Z');
    harness = await startHarness({
      now: clock.now,
      env: fastTicks,
      servers: {
        records: { command: process.execPath, args: [recordsServerPath] },
        crm: { url: remote.url, headers: { Authorization: 'Bearer ${token}' } },
      },
    });
    const running = harness;
    await running.people.connect({ workspace: 'T0001', user: 'UHUMAN01' }, 'crm', tokenOf('alice'));
    await running.people.connect({ workspace: 'T0001', user: 'U0BOB' }, 'crm', tokenOf('bob'));
    running.llm.respondWith((request: FakeRequest) => {
      const messages = (request.body.messages ?? []) as Array<{ role: string; content: string | null }>;
      const tools = ((request.body.tools ?? []) as Array<{ function: { name: string } }>).map(
        (tool) => tool.function.name,
      );
      const results = messages.filter((message) => message.role === 'tool');
      if (results.length === 0 && tools.includes('mcp__crm__whoami'))
        return completion(request, { toolCall: { name: 'mcp__crm__whoami', arguments: {} } });
      if (
        results.length === 1 &&
        !results[0]?.content?.startsWith('Error') &&
        tools.includes('mcp__records__delete_record')
      )
        return completion(request, {
          toolCall: { name: 'mcp__records__delete_record', arguments: { id: 'R1' } },
        });
      return completion(request, { text: results.map((result) => result.content).join(' / ') });
    });
    await command(running, 'schedule 毎朝8時 | 顧客を整理して', { channel: 'C0OPS' });
    clock.set('2026-11-27T23:00:00Z');
    expect(await running.bot.schedules.tick()).toMatchObject({ claimed: 1 });
    // The approval is asked in the owner's DM (D + their id), in the run's thread there.
    const approval = await waitFor(() =>
      running.slack
        .callsOf('chat.postMessage')
        .find(
          (call) =>
            call.args.channel === 'DHUMAN01' &&
            JSON.stringify(call.args.blocks ?? []).includes(approvalActions.approve),
        ),
    );
    const dm = running.slack.thread('DHUMAN01', String(approval.args.thread_ts));
    const request = dm.find((message) =>
      JSON.stringify(message.blocks ?? []).includes(approvalActions.approve),
    );
    expect(request).toBeDefined();
    await running.slack.press({
      channel: 'DHUMAN01',
      messageTs: request?.ts ?? '',
      actionId: approvalActions.approve,
      value: String(
        ((request?.blocks ?? []) as Array<{ elements?: Array<{ action_id?: string; value?: string }> }>)
          .flatMap((block) => block.elements ?? [])
          .find((element) => element.action_id === approvalActions.approve)?.value,
      ),
    });
    const posted = await waitFor(() => scheduledPosts(running, 'C0OPS')[0]);
    expect(posted.text).toContain('you are alice');
    expect(posted.text).toContain('deleted with {"id":"R1"}');
    expect(remote.calls.map((call) => call.owner)).toEqual(['alice']);

    // Someone who never connected crm: the run posts, and they get a DM with a Reconnect button.
    running.slack.setPerson('U0CAROL', {});
    await command(running, 'schedule 毎朝9時 | 顧客を整理して', { channel: 'C0OPS', user: 'U0CAROL' });
    clock.set('2026-11-28T00:00:00Z');
    expect(await running.bot.schedules.tick()).toMatchObject({ claimed: 1 });
    const told = await waitFor(() =>
      running.slack
        .callsOf('chat.postMessage')
        .find(
          (call) =>
            call.args.channel === 'D0CAROL' &&
            JSON.stringify(call.args.blocks ?? []).includes('credential_connect'),
        ),
    );
    expect(String(told.args.text)).toContain('`crm` にはあなたの接続が必要です');
    expect(remote.calls.map((call) => call.owner)).toEqual(['alice']);
  }, 60_000);

  it('#47 tools the asker approves when confirming run in the schedule without asking; only tools the proposal names and that ask', async () => {
    const clock = testClock('2026-11-27T22:00:00Z');
    harness = await startHarness({
      now: clock.now,
      env: fastTicks,
      servers: { records: { command: process.execPath, args: [recordsServerPath] } },
    });
    const running = harness;
    running.llm.respondWith((request: FakeRequest) => {
      const messages = (request.body.messages ?? []) as Array<{ role: string; content: string | null }>;
      const last = messages.at(-1);
      const question = messages.filter((message) => message.role === 'user').at(-1)?.content ?? '';
      if (question.includes('毎朝') && last?.role !== 'tool')
        return completion(request, {
          toolCall: {
            name: 'host__propose_schedule',
            arguments: {
              when: '毎朝8時',
              question: '古い記録を消して',
              // One write tool of the asker's, one read-only tool, one that does not exist.
              approve_tools: ['mcp__records__delete_record', 'mcp__weather__get_weather', 'mcp__nope__x'],
            },
          },
        });
      if (last?.role === 'tool') return completion(request, { text: `結果: ${last.content}` });
      return completion(request, {
        toolCall: { name: 'mcp__records__delete_record', arguments: { id: 'OLD' } },
      });
    });
    const asked = await mentionBot(running, 'C0PRE', '毎朝8時に古い記録を消して');
    const proposal = await waitFor(() =>
      running.slack
        .thread('C0PRE', asked.ts)
        .find((message) => JSON.stringify(message.blocks ?? []).includes(scheduleActions.confirmWithTools)),
    );
    expect(proposal.text).not.toContain('get_weather');
    const proposalId = String(
      (proposal.blocks as Array<{ elements?: Array<{ value?: string }> }>).find((block) => block.elements)
        ?.elements?.[0]?.value,
    );
    await running.slack.press({
      channel: 'C0PRE',
      messageTs: proposal.ts,
      actionId: scheduleActions.confirmWithTools,
      value: proposalId,
    });
    const made = await eventually(async () => (await running.store.schedules.ofWorkspace('T0001'))[0]);
    expect(made.approvedTools).toEqual(['mcp__records__delete_record']);
    clock.set('2026-11-27T23:00:00Z');
    expect(await running.bot.schedules.tick()).toMatchObject({ claimed: 1 });
    const posted = await waitFor(() => scheduledPosts(running, 'C0PRE')[0]);
    expect(posted.text).toContain('deleted with {"id":"OLD"}');
    // Nobody was asked: no approval request reached the owner's DM.
    expect(
      running.slack
        .callsOf('chat.postMessage')
        .filter((call) => JSON.stringify(call.args.blocks ?? []).includes(approvalActions.approve)),
    ).toEqual([]);
  }, 60_000);

  it('#47 a run past its owner’s budget posts nothing and tells them why in a DM', async () => {
    const clock = testClock('2026-11-27T22:00:00Z');
    harness = await startHarness({
      now: clock.now,
      env: { ...fastTicks, USAGE_LIMIT_TOKENS_PER_PERSON_DAY: '10' },
    });
    const running = harness;
    const first = await mentionBot(running, 'C0BUDGET', '東京の天気は？');
    await waitFor(() =>
      running.slack.thread('C0BUDGET', first.ts).find((message) => message.text.includes('気象庁')),
    );
    await command(running, 'schedule 毎朝8時 | 東京の天気を教えて', { channel: 'C0BUDGET' });
    const modelCalls = running.llm.requests.length;
    clock.set('2026-11-27T23:00:00Z');
    expect(await running.bot.schedules.tick()).toMatchObject({ claimed: 1 });
    const told = await waitFor(() =>
      running.slack
        .callsOf('chat.postMessage')
        .find((call) => call.args.channel === 'DHUMAN01' && String(call.args.text).includes('失敗しました')),
    );
    expect(String(told.args.text)).toMatch(/budget of 10 model tokens/);
    await running.bot.schedules.settled();
    const [row] = await running.store.schedules.ofOwner('T0001', 'UHUMAN01');
    expect(row).toMatchObject({ lastStatus: 'failed' });
    expect(scheduledPosts(running, 'C0BUDGET')).toEqual([]);
    expect(running.llm.requests.length).toBe(modelCalls);
  }, 60_000);

  it('#47 a schedule whose owner left stops before it runs, and the workspace admins are told', async () => {
    const clock = testClock('2026-11-27T22:00:00Z');
    harness = await startHarness({ now: clock.now, env: fastTicks });
    const running = harness;
    running.slack.setPerson('U0ADMIN', { admin: true });
    await command(running, 'schedule 毎朝8時 | 東京の天気を教えて', { channel: 'C0GENERAL' });
    running.slack.setPerson('UHUMAN01', { deleted: true });
    clock.set('2026-11-27T23:00:00Z');
    expect(await running.bot.schedules.tick()).toMatchObject({ claimed: 1 });
    const told = await waitFor(() =>
      running.slack.callsOf('chat.postMessage').find((call) => call.args.channel === 'U0ADMIN'),
    );
    expect(String(told.args.text)).toContain('is no longer in this workspace');
    const [row] = await running.store.schedules.ofOwner('T0001', 'UHUMAN01');
    expect(row).toMatchObject({ state: 'stopped' });
    expect(scheduledPosts(running, 'C0GENERAL')).toEqual([]);
    expect(running.llm.requests).toHaveLength(0);
  }, 60_000);

  it('#47 a channel the bot is not in is refused when the schedule is set', async () => {
    harness = await startHarness({ env: fastTicks });
    const running = harness;
    running.slack.setChannel('C0SECRET', { members: ['UHUMAN01'], bot: false });
    const answer = await command(running, 'schedule 毎朝8時 | 天気', { channel: 'C0SECRET' });
    expect(answer).toContain('the bot is not in');
    running.slack.setChannel('C0OTHERS', { members: ['U0BOB'] });
    expect(await command(running, 'schedule 毎朝8時 | 天気', { channel: 'C0OTHERS' })).toContain(
      'UHUMAN01 is not in C0OTHERS',
    );
    expect(await command(running, 'schedule そのうち | 天気', { channel: 'C0GENERAL' })).toContain('毎朝8時');
    // Someone else's direct message with the bot is refused; one's own is fine.
    expect(await command(running, 'schedule 毎朝8時 | 天気', { channel: 'D0BOB' })).toContain(
      'D0BOB is not your direct message with the bot',
    );
    expect(await running.store.schedules.ofWorkspace('T0001')).toEqual([]);
    expect(await command(running, 'schedule 毎朝8時 | 天気', { channel: 'DHUMAN01' })).toContain(
      '✅ Scheduled',
    );
    await running.store.schedules.delete((await running.store.schedules.ofWorkspace('T0001'))[0]?.id ?? '');
    expect(await running.store.schedules.ofWorkspace('T0001')).toEqual([]);
  }, 60_000);
});

describe('繰り返す (make recurring)', () => {
  it('#47 the message shortcut on an answer opens a form with its question; submitting sets the schedule as the person', async () => {
    harness = await startHarness({ env: fastTicks });
    const running = harness;
    const asked = await mentionBot(running, 'C0REPEAT', '東京の天気を教えて');
    const answer = await waitFor(() =>
      running.slack
        .thread('C0REPEAT', asked.ts)
        .find((message) => message.user !== 'UHUMAN01' && message.text.includes('気象庁')),
    );
    await running.slack.shortcut({
      channel: 'C0REPEAT',
      messageTs: answer.ts,
      callbackId: repeatShortcut.callbackId,
    });
    const opened = await waitFor(() => running.slack.callsOf('views.open')[0]);
    const view = opened.args.view as { callback_id: string; private_metadata: string };
    expect(view.callback_id).toBe(repeatShortcut.modal);
    // The question the answer answered, prefilled (without the mention).
    expect(JSON.stringify(view)).toContain('"initial_value":"東京の天気を教えて"');
    await running.slack.submitView({
      callbackId: view.callback_id,
      privateMetadata: view.private_metadata,
      values: { when: 'そのうち', question: '東京の天気を教えて' },
    });
    await waitFor(() =>
      [...running.slack.ackPayloads.values()].find((payload) => payload.response_action === 'errors'),
    );
    expect(await running.store.schedules.ofWorkspace('T0001')).toEqual([]);
    await running.slack.submitView({
      callbackId: view.callback_id,
      privateMetadata: view.private_metadata,
      values: { when: '平日 9:30', question: '東京の天気を教えて' },
    });
    const made = await eventually(async () => (await running.store.schedules.ofWorkspace('T0001'))[0]);
    expect(made).toMatchObject({
      owner: 'UHUMAN01',
      channel: 'C0REPEAT',
      cron: '30 9 * * 1-5',
      question: '東京の天気を教えて',
    });
  }, 60_000);
});

describe('schedules in App Home', () => {
  it('#47 the owner sees next run and last result and pauses; an admin sees the workspace’s and stops any; a member cannot', async () => {
    const clock = testClock('2026-11-27T22:00:00Z');
    harness = await startHarness({ now: clock.now, env: fastTicks });
    const running = harness;
    running.slack.setPerson('U0ADMIN', { admin: true });
    await command(running, 'schedule 毎朝8時 | 東京の天気を教えて', { channel: 'C0HOMES' });
    const [made] = await running.store.schedules.ofOwner('T0001', 'UHUMAN01');
    await openHome(running, 'UHUMAN01');
    const mine = await waitFor(() => publishedHome(running, 'UHUMAN01'));
    expect(mine).toContain('Your schedules');
    expect(mine).toContain('next: 11/28(土) 08:00 (Asia/Tokyo) · not run yet');
    expect(mine).toContain(scheduleActions.pause);
    await running.slack.pressInView({ actionId: scheduleActions.pause, value: made?.id ?? '' });
    await eventually(async () =>
      (await running.store.schedules.get(made?.id ?? ''))?.state === 'paused' ? true : undefined,
    );

    // Someone else's Stop does nothing; an admin's stops it (they see the workspace's schedules).
    await running.slack.pressInView({ actionId: scheduleActions.stop, value: made?.id ?? '', user: 'U0BOB' });
    await running.slack.pressInView({
      actionId: scheduleActions.remove,
      value: made?.id ?? '',
      user: 'U0BOB',
    });
    await openHome(running, 'U0ADMIN');
    const admin = await waitFor(() => publishedHome(running, 'U0ADMIN'));
    expect(admin).toContain('Workspace schedules');
    expect(admin).toContain(scheduleActions.stop);
    expect(await running.store.schedules.get(made?.id ?? '')).toMatchObject({ state: 'paused' });
    await running.slack.pressInView({
      actionId: scheduleActions.stop,
      value: made?.id ?? '',
      user: 'U0ADMIN',
    });
    const stopped = await eventually(async () => {
      const row = await running.store.schedules.get(made?.id ?? '');
      return row?.state === 'stopped' ? row : undefined;
    });
    expect(stopped.stoppedReason).toContain('stopped by admin U0ADMIN');

    // The admin's Stop holds: the owner's App Home offers only Delete, and a Resume or Run now sent
    // anyway changes nothing (before: either put the stopped schedule back to work).
    await openHome(running, 'UHUMAN01');
    // The owner's App Home as published after the Stop (an earlier press's publish may land first).
    const owner = await waitFor(() => {
      const view = publishedHome(running, 'UHUMAN01');
      return view?.includes('stopped by admin U0ADMIN') ? view : undefined;
    });
    expect(owner).toContain(scheduleActions.remove);
    expect(owner).not.toContain(scheduleActions.resume);
    expect(owner).not.toContain(scheduleActions.runNow);
    const ownersPublished = () =>
      running.slack.callsOf('views.publish').filter((call) => call.args.user_id === 'UHUMAN01').length;
    for (const actionId of [scheduleActions.resume, scheduleActions.runNow]) {
      const seen = ownersPublished();
      await running.slack.pressInView({ actionId, value: made?.id ?? '' });
      // Each press ends with the owner's App Home published again (after the store was asked).
      await waitFor(() => (ownersPublished() > seen ? true : undefined));
    }
    // Nor does the slash command (before: `resume` and `run` put it back to work, `pause` erased the Stop).
    for (const verb of ['resume', 'run', 'pause']) {
      const reply = await command(running, `schedule ${verb} ${(made?.id ?? '').slice(0, 8)}`, {
        channel: 'C0HOMES',
      });
      expect(reply).toContain('was stopped by an admin');
    }
    expect(await running.store.schedules.get(made?.id ?? '')).toMatchObject({
      state: 'stopped',
      stoppedReason: 'stopped by admin U0ADMIN',
    });
  }, 60_000);
});
