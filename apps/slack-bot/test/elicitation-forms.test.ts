import { completion, type FakeRequest, formsServerPath, longChoices } from '@ai-assistant/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { elicitationActions } from '../src/slack/elicitation.js';
import { type Harness, mentionBot, startHarness, waitFor } from './harness.js';

/** The model: asks the form its question names, then echoes the tool's result. */
function model(request: FakeRequest) {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: string | null }>;
  const last = messages.at(-1);
  if (last?.role === 'tool') return completion(request, { text: `結果: ${last.content}` });
  const form = /form:(\S+)/.exec(last?.content ?? '')?.[1] ?? 'many';
  return completion(request, { toolCall: { name: 'mcp__forms__ask', arguments: { form } } });
}

type Block = { type: string; block_id?: string; label?: { text: string }; hint?: { text: string } };
type Element = Record<string, unknown> & {
  options?: Array<{ text: { text: string }; value: string }>;
};

describe('#43.18 a server’s form that Slack cannot show whole', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({
      servers: { forms: { command: process.execPath, args: [formsServerPath], approval: 'auto' } },
    });
    harness.llm.respondWith(model);
  }, 60_000);
  afterAll(() => harness?.close());

  /** The question's message in the thread and its button's value (which names the question). */
  const button = (channel: string, ts: string) =>
    waitFor(() => {
      for (const message of harness.slack.thread(channel, ts)) {
        const found = ((message.blocks ?? []) as Array<{ elements?: Array<Record<string, string>> }>)
          .flatMap((block) => block.elements ?? [])
          .find((element) => element.action_id === elicitationActions.open);
        if (found) return { ts: message.ts, value: found.value as string };
      }
      return undefined;
    });
  const finalAnswer = (channel: string, ts: string) =>
    waitFor(
      () =>
        harness.slack
          .thread(channel, ts)
          .find((message) => !message.streaming && message.text.startsWith('結果:'))?.text,
      20_000,
    );
  /** Opens the form from its button; returns the modal Slack accepted. */
  async function openForm(channel: string, ts: string) {
    const question = await button(channel, ts);
    const before = harness.slack.callsOf('views.open').length;
    await harness.slack.press({
      channel,
      messageTs: question.ts,
      actionId: elicitationActions.open,
      value: question.value,
    });
    const call = await waitFor(() => harness.slack.callsOf('views.open')[before]);
    return call.args.view as { callback_id: string; private_metadata: string; blocks: Block[] };
  }

  it('#43.18 1,004 fields: declined before any form, the person and the server told why', async () => {
    const { ts } = await mentionBot(harness, 'C4318', 'form:many');
    const answer = await finalAnswer('C4318', ts);
    // Before: a form of 90 fields, and "accept" without the required field1003.
    expect(answer).toContain('refused:');
    expect(answer).toMatch(/1,004 fields/);
    expect(harness.slack.callsOf('views.open')).toHaveLength(0);
    const told = harness.slack.thread('C4318', ts).map((message) => message.text);
    expect(told.some((text) => /1,004 fields/.test(text) && /forms/.test(text))).toBe(true);
  }, 40_000);

  it('#43.18 two choices longer than 150 characters: the one chosen is the one sent', async () => {
    const { ts } = await mentionBot(harness, 'C4319', 'form:long-choices');
    const view = await openForm('C4319', ts);
    const input = view.blocks.find((block) => block.type === 'input') as Block & { element: Element };
    const options = input.element.options ?? [];
    expect(options).toHaveLength(2);
    // Before: both options carried the same clipped value, 150 a's.
    expect(new Set(options.map((option) => option.value)).size).toBe(2);
    await harness.slack.submitView({
      callbackId: view.callback_id,
      privateMetadata: view.private_metadata,
      values: {
        [input.block_id as string]: { type: 'static_select', selected_option: { value: options[1]?.value } },
      },
    });
    const answer = await finalAnswer('C4319', ts);
    expect(answer).toContain(JSON.stringify({ action: 'accept', content: { choice: longChoices[1] } }));
  }, 40_000);

  it('#43.18 a 5,000-character default is not shown (Slack takes 3,000), and the person is told why', async () => {
    const { ts } = await mentionBot(harness, 'C4320', 'form:long-default');
    const view = await openForm('C4320', ts);
    const [note, name] = view.blocks.filter((block) => block.type === 'input') as Array<
      Block & { element: Element }
    >;
    // Before: initial_value of 5,000 characters went to views.open.
    expect(note?.element.initial_value).toBeUndefined();
    expect(note?.hint?.text).toMatch(/5,000 characters/);
    expect(name?.element.initial_value).toBe('Taro');
    await harness.slack.submitView({
      callbackId: view.callback_id,
      privateMetadata: view.private_metadata,
      values: { [name?.block_id as string]: 'Taro' },
    });
    const answer = await finalAnswer('C4320', ts);
    // Left empty, the field gets the server's whole suggestion (the host applies defaults), never a
    // clipped one the server did not suggest.
    const sent = JSON.parse(answer.replace(/^結果: answered /, '')) as {
      action: string;
      content: { name: string; note: string };
    };
    expect(sent).toMatchObject({ action: 'accept', content: { name: 'Taro' } });
    expect(sent.content.note).toBe('n'.repeat(5000));
  }, 40_000);
});
