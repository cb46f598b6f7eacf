import {
  botUserId,
  completion,
  type FakeRequest,
  type PetApi,
  petModel,
  petSpec,
  recordsServerPath,
  startPetApi,
} from '@ai-assistant/test-kit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { approvalActions } from '../src/slack/approvals.js';
import { type Harness, mentionBot, startHarness, waitFor } from './harness.js';

let api: PetApi;
let harness: Harness;
const start = async (env: Record<string, string> = {}) => {
  harness = await startHarness({
    env,
    servers: { pets: { type: 'openapi', openapi_spec: petSpec, openapi_base_url: api.url } },
  });
  harness.llm.respondWith(petModel);
};
beforeEach(async () => {
  api = await startPetApi();
});
afterEach(async () => {
  await harness?.close();
  await api.close();
});

const posts = () => api.received.filter((request) => request.method === 'POST');

/** Waits for the approval message in the thread and returns its ts and request id. */
async function approvalMessage(channel: string, threadTs: string) {
  const message = await waitFor(() =>
    harness.slack
      .thread(channel, threadTs)
      .find((entry) => Array.isArray(entry.blocks) && entry.blocks.length > 0),
  );
  const actions = (
    message.blocks as Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }>
  ).find((block) => block.type === 'actions');
  return { ts: message.ts, id: actions?.elements?.[0]?.value ?? '', text: JSON.stringify(message.blocks) };
}

describe('approvals in Slack', () => {
  it('the asker approves: the POST reaches the API once; the buttons go, a second press does nothing', async () => {
    await start();
    const { ts } = await mentionBot(harness, 'C800', 'ポチを登録して');
    const approval = await approvalMessage('C800', ts);
    // Written by the host: tool, server, the arguments; the asker is named.
    expect(approval.text).toContain('addPet');
    expect(approval.text).toContain('pets');
    expect(approval.text).toContain('ポチ');
    expect(approval.text).toContain('<@UHUMAN01>');
    expect(posts()).toHaveLength(0);
    await harness.slack.press({
      channel: 'C800',
      messageTs: approval.ts,
      actionId: approvalActions.approve,
      value: approval.id,
    });
    await waitFor(() =>
      harness.slack
        .thread('C800', ts)
        .some((message) => !message.streaming && message.text.startsWith('結果:')),
    );
    expect(posts()).toHaveLength(1);
    expect(JSON.parse(posts()[0]?.body ?? '{}')).toEqual({ name: 'ポチ' });
    const updated = harness.slack.thread('C800', ts).find((message) => message.ts === approval.ts);
    expect(updated?.text).toMatch(/^✅ <@UHUMAN01> が/);
    expect(updated?.blocks).toEqual([]);
    await harness.slack.press({
      channel: 'C800',
      messageTs: approval.ts,
      actionId: approvalActions.approve,
      value: approval.id,
    });
    const told = await waitFor(() => harness.slack.callsOf('chat.postEphemeral')[0]);
    expect(told.args.text).toContain('もう有効ではありません');
    expect(posts()).toHaveLength(1);
  }, 30_000);

  it('someone else presses Approve: nothing happens and they are told why; the asker denies with a reason the model reads', async () => {
    await start();
    const { ts } = await mentionBot(harness, 'C801', 'ポチを登録して');
    const approval = await approvalMessage('C801', ts);
    await harness.slack.press({
      channel: 'C801',
      messageTs: approval.ts,
      actionId: approvalActions.approve,
      value: approval.id,
      user: 'UOTHER99',
    });
    const told = await waitFor(() => harness.slack.callsOf('chat.postEphemeral')[0]);
    expect(told.args).toMatchObject({
      user: 'UOTHER99',
      text: expect.stringContaining('<@UHUMAN01> さんだけ'),
    });
    expect(posts()).toHaveLength(0);
    await harness.slack.press({
      channel: 'C801',
      messageTs: approval.ts,
      actionId: approvalActions.denyWithReason,
      value: approval.id,
    });
    await waitFor(() => harness.slack.callsOf('views.open')[0]);
    await harness.slack.submitView({
      callbackId: approvalActions.reasonModal,
      privateMetadata: approval.id,
      values: { reason: '名前はタマにして' },
    });
    const answer = await waitFor(() =>
      harness.slack
        .thread('C801', ts)
        .find((message) => !message.streaming && message.text.startsWith('結果:')),
    );
    expect(answer.text).toContain('名前はタマにして');
    expect(posts()).toHaveLength(0);
    expect(harness.slack.thread('C801', ts).find((message) => message.ts === approval.ts)?.text).toMatch(
      /^⛔ <@UHUMAN01> が.*名前はタマにして/,
    );
  }, 30_000);

  it('expiry: the request says so, the turn goes on, and the API is never called', async () => {
    await start({ APPROVAL_TIMEOUT_MS: '300' });
    const { ts } = await mentionBot(harness, 'C802', 'ポチを登録して');
    const approval = await approvalMessage('C802', ts);
    await waitFor(() =>
      harness.slack
        .thread('C802', ts)
        .some((message) => !message.streaming && message.text.startsWith('結果:')),
    );
    expect(harness.slack.thread('C802', ts).find((message) => message.ts === approval.ts)?.text).toContain(
      '期限が切れた',
    );
    expect(api.received).toHaveLength(0);
    expect(
      harness.slack.thread('C802', ts).every((message) => message.user === botUserId || message.ts === ts),
    ).toBe(true);
  }, 30_000);
});

/** A model that calls delete_record with the given arguments, then answers with what the tool said. */
function recordsModel(args: Record<string, unknown>) {
  return (request: FakeRequest) => {
    const messages = (request.body.messages ?? []) as Array<{ role: string; content: string | null }>;
    const last = messages.at(-1);
    if (last?.role === 'tool') return completion(request, { text: `結果: ${last.content}` });
    return completion(request, { toolCall: { name: 'mcp__records__delete_record', arguments: args } });
  };
}

describe('approvals show everything the tool will receive (hardening 27.1)', () => {
  const startRecords = async (args: Record<string, unknown>) => {
    harness = await startHarness({
      servers: { records: { command: process.execPath, args: [recordsServerPath] } },
    });
    harness.llm.respondWith(recordsModel(args));
  };
  const harmless = Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`note${index}`, 'ok']));

  it('the eleventh argument is shown before ✅ (before: only note0…note9), and the tool gets exactly what was shown', async () => {
    await startRecords({ ...harmless, id: 'PRODUCTION-DB', note10: 'Q'.repeat(2500) });
    const { ts } = await mentionBot(harness, 'C810', 'メモを消して');
    const approval = await approvalMessage('C810', ts);
    expect(approval.text).toContain('PRODUCTION-DB');
    for (let index = 0; index < 10; index++) expect(approval.text).toContain(`*note${index}*`);
    // A long value is shown whole, over as many sections as it needs.
    expect((approval.text.match(/Q+/g) ?? []).join('').length).toBe(2500);
    await harness.slack.press({
      channel: 'C810',
      messageTs: approval.ts,
      actionId: approvalActions.approve,
      value: approval.id,
    });
    const answer = await waitFor(() =>
      harness.slack
        .thread('C810', ts)
        .find((message) => !message.streaming && message.text.startsWith('結果:')),
    );
    expect(answer.text).toContain('PRODUCTION-DB');
  }, 30_000);

  it('an argument the schema does not define is refused before anyone is asked', async () => {
    await startRecords({ id: 'r1', destination: 'attacker' });
    const { ts } = await mentionBot(harness, 'C811', 'メモを消して');
    const answer = await waitFor(() =>
      harness.slack
        .thread('C811', ts)
        .find((message) => !message.streaming && message.text.startsWith('結果:')),
    );
    expect(answer.text).toMatch(/unknown argument\(s\) destination/);
    // No approval was asked (the answer's own feedback buttons are no approval).
    expect(
      harness.slack
        .thread('C811', ts)
        .some((message) => JSON.stringify(message.blocks ?? []).includes(approvalActions.approve)),
    ).toBe(false);
  }, 30_000);

  it('arguments too long for one message are not offered for approval: no ✅, and the model is told why', async () => {
    const huge = Object.fromEntries(
      Array.from({ length: 12 }, (_, index) => [`note${index}`, 'y'.repeat(12_000)]),
    );
    await startRecords({ id: 'r2', ...huge });
    const { ts } = await mentionBot(harness, 'C812', 'メモを消して');
    const answer = await waitFor(() =>
      harness.slack
        .thread('C812', ts)
        .find((message) => !message.streaming && message.text.startsWith('結果:')),
    );
    expect(answer.text).toMatch(/could not all be shown to the person for approval/);
    const notice = harness.slack.thread('C812', ts).find((message) => message.text.startsWith('⛔'));
    expect(notice?.text).toContain('全てを表示できない');
    expect(
      harness.slack
        .thread('C812', ts)
        .some((message) => JSON.stringify(message.blocks ?? []).includes(approvalActions.approve)),
    ).toBe(false);
  }, 30_000);
});

describe('a person deciding holds no answer slot (hardening 27.7)', () => {
  /** Registers a pet for every question, except "何時": that one is answered at once, with no tool. */
  const model = (request: FakeRequest) => {
    const messages = (request.body.messages ?? []) as Array<{ role: string; content: string | null }>;
    const question = messages.filter((message) => message.role === 'user').at(-1)?.content ?? '';
    if (question.includes('何時')) return completion(request, { text: 'いまは 9 時です' });
    return petModel(request);
  };
  it('with every slot held by unanswered approvals, another person is answered at once; a fourth request of one person is refused unasked', async () => {
    harness = await startHarness({
      // One answer at a time: before, the first approval held it until it expired (here a minute).
      env: { MAX_CONCURRENT_ANSWERS: '1', APPROVAL_TIMEOUT_MS: '60000' },
      servers: { pets: { type: 'openapi', openapi_spec: petSpec, openapi_base_url: api.url } },
    });
    harness.llm.respondWith(model);
    const asked: Array<{ channel: string; ts: string }> = [];
    for (const channel of ['C820', 'C821', 'C822']) {
      const { ts } = await mentionBot(harness, channel, 'ポチを登録して');
      await approvalMessage(channel, ts);
      asked.push({ channel, ts });
    }
    // Someone else's question is answered while all three wait.
    harness.slack.setPerson('UOTHER77', { team: 'T0001' });
    const { ts } = await harness.slack.mention('C823', 'いま何時？', { user: 'UOTHER77' });
    const answer = await waitFor(() =>
      harness.slack.thread('C823', ts).find((message) => !message.streaming && message.text.includes('9 時')),
    );
    expect(answer).toBeDefined();
    // A fourth request of the same person is not asked: the model reads why.
    const fourth = await mentionBot(harness, 'C824', 'ポチを登録して');
    const refused = await waitFor(() =>
      harness.slack
        .thread('C824', fourth.ts)
        .find((message) => !message.streaming && message.text.startsWith('結果:')),
    );
    expect(refused.text).toMatch(/already has 3 approval requests waiting/);
    // The first three still wait for their person, buttons and all; nothing was added.
    for (const { channel, ts: thread } of asked)
      expect(
        harness.slack
          .thread(channel, thread)
          .some((message) => JSON.stringify(message.blocks ?? []).includes(approvalActions.approve)),
      ).toBe(true);
    expect(posts()).toHaveLength(0);
  }, 30_000);
});
