import { rowsMentioning } from '@ai-assistant/store/testing';
import { type PetApi, petModel, petSpec, startPetApi } from '@ai-assistant/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { approvalActions } from '../src/slack/approvals.js';
import { adminActions } from '../src/slack/workspace-admin.js';
import { answered, type Harness, mentionBot, startHarness, waitFor } from './harness.js';

let harness: Harness | undefined;
let api: PetApi | undefined;
afterEach(async () => {
  await harness?.close();
  await api?.close();
  harness = undefined;
  api = undefined;
});

describe('for the people who run it: the audit trail and budgets', () => {
  it('an approved tool call leaves one audit row with the approver; admins read it with /assistant audit; no secret in any table', async () => {
    api = await startPetApi();
    harness = await startHarness({
      servers: { pets: { type: 'openapi', openapi_spec: petSpec, openapi_base_url: api.url } },
    });
    const running = harness;
    running.llm.respondWith(petModel);
    running.slack.setPerson('U_ADMIN', { team: 'T0001', admin: true });
    const { ts } = await mentionBot(running, 'C900', 'ポチを登録して');
    const approval = await waitFor(() =>
      running.slack
        .thread('C900', ts)
        .find((entry) => Array.isArray(entry.blocks) && entry.blocks.length > 0),
    );
    const id = JSON.stringify(approval.blocks).match(/"value":"([^"]+)"/)?.[1] ?? '';
    await running.slack.press({
      channel: 'C900',
      messageTs: approval.ts,
      actionId: approvalActions.approve,
      value: id,
    });
    await waitFor(() =>
      running.slack
        .thread('C900', ts)
        .some((message) => !message.streaming && message.text.startsWith('結果:')),
    );

    const entries = await (async () => {
      for (let attempt = 0; attempt < 100; attempt++) {
        const found = await running.store?.audit.recent('T0001');
        if (found && found.length > 0) return found;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return [];
    })();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      kind: 'tool_call',
      person: 'UHUMAN01',
      server: 'pets',
      tool: 'addPet',
      outcome: 'ok',
      approval: { by: 'UHUMAN01' },
    });
    expect(entries[0]?.arguments).toContain('ポチ');

    await running.slack.command('audit', { user: 'UHUMAN01' });
    await running.slack.command('audit pets', { user: 'U_ADMIN' });
    const replies = await waitFor(() =>
      running.slack.responses.length >= 2 ? running.slack.responses : undefined,
    );
    expect(String(replies[0]?.text)).toMatch(/only workspace admins and owners/);
    expect(String(replies[1]?.text)).toMatch(/<@UHUMAN01> `pets\/addPet` .*→ ok .*approved by <@UHUMAN01>/);

    for (const secret of ['xoxb-test-token', 'xapp-test-token', 'sk-test-0123456789'])
      expect(await rowsMentioning(running.store as NonNullable<Harness['store']>, secret)).toEqual([]);
  }, 40_000);

  it('a budget stops the second question with its message, and the model is not called', async () => {
    harness = await startHarness({ env: { USAGE_LIMIT_TOKENS_PER_PERSON_DAY: '10' } });
    const running = harness;
    const first = await mentionBot(running, 'C901', '東京の天気は？');
    await answered(running, 'C901', first.ts);
    const modelCalls = running.llm.requests.length;
    const second = await mentionBot(running, 'C901', '大阪の天気は？');
    const [answer] = await answered(running, 'C901', second.ts);
    expect(answer?.text).toMatch(/today's budget of 10 model tokens; it resets at 00:00 UTC/);
    expect(running.llm.requests.length).toBe(modelCalls);
  }, 40_000);

  it('#43.13 the operator’s budget is a ceiling: an admin may lower it, never lift it, and the modal says so', async () => {
    harness = await startHarness({ env: { USAGE_LIMIT_TOKENS_PER_PERSON_DAY: '10' } });
    const running = harness;
    running.slack.setPerson('U_ADMIN', { team: 'T0001', admin: true });
    await running.slack.pressInView({ actionId: adminActions.budgets, value: 'budgets', user: 'U_ADMIN' });
    const modal = JSON.stringify((await waitFor(() => running.slack.callsOf('views.open')[0])).args.view);
    expect(modal).toContain('At most 10 (the operator’s limit).');
    const lifted = await running.slack.submitView({
      callbackId: adminActions.budgetsModal,
      privateMetadata: '',
      values: { tokensPerPersonDay: { type: 'number_input', value: '1000000000' } },
      user: 'U_ADMIN',
    });
    const refusal = await waitFor(() => running.slack.ackPayloads.get(lifted));
    expect(JSON.stringify(refusal)).toMatch(/at most 10 .*the operator/);
    expect(await running.people.limits('T0001')).toBeUndefined();
    // A lower one is kept.
    const lowered = await running.slack.submitView({
      callbackId: adminActions.budgetsModal,
      privateMetadata: '',
      values: { toolCallsPerPersonDay: { type: 'number_input', value: '5' } },
      user: 'U_ADMIN',
    });
    await waitFor(() => running.slack.ackPayloads.has(lowered) || undefined);
    expect(await running.people.limits('T0001')).toEqual({ toolCallsPerPersonDay: 5 });
    // The home tab says what applies and the operator's ceiling.
    const home = await waitFor(() =>
      running.slack
        .callsOf('views.publish')
        .map((call) => JSON.stringify(call.args.view))
        .find((view) => view.includes('Tool calls per person per day 5')),
    );
    expect(home).toContain('Model tokens per person per day 10 (the operator’s ceiling: 10)');

    // A lifted budget saved before the ceiling existed does not lift it either.
    await running.store?.workspaces.setLimits('T0001', { tokensPerPersonDay: 1_000_000_000 });
    const first = await mentionBot(running, 'C902', '東京の天気は？');
    await answered(running, 'C902', first.ts);
    const modelCalls = running.llm.requests.length;
    const second = await mentionBot(running, 'C902', '大阪の天気は？');
    const [answer] = await answered(running, 'C902', second.ts);
    expect(answer?.text).toMatch(/today's budget of 10 model tokens/);
    expect(running.llm.requests.length).toBe(modelCalls);
  }, 40_000);
});
