import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { completion, type FakeRequest } from '@ai-assistant/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalActions } from '../src/slack/approvals.js';
import { elicitationActions } from '../src/slack/elicitation.js';
import { type Harness, mentionBot, startHarness, waitFor } from './harness.js';

const everythingEntry = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

/**
 * The model: a form question calls the elicitation tool, a sampling question the sampling tool; the
 * server's own completion request (its system prompt) is answered; a tool result is echoed.
 */
function model(request: FakeRequest) {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: string | null }>;
  if (messages[0]?.content === 'You are a helpful test server.')
    return completion(request, { text: 'サーバー向けの要約です' });
  const last = messages.at(-1);
  if (last?.role === 'tool') return completion(request, { text: `結果: ${last.content}` });
  if (last?.content?.includes('画像'))
    return completion(request, { toolCall: { name: 'mcp__everything__get-tiny-image', arguments: {} } });
  if (last?.content?.includes('ファイル'))
    return completion(request, {
      toolCall: {
        name: 'mcp__everything__get-resource-reference',
        arguments: { resourceType: 'Blob', resourceId: 2 },
      },
    });
  if (last?.content?.includes('フォーム'))
    return completion(request, {
      toolCall: { name: 'mcp__everything__trigger-elicitation-request', arguments: {} },
    });
  return completion(request, {
    toolCall: {
      name: 'mcp__everything__trigger-sampling-request',
      arguments: { prompt: '要約して', maxTokens: 50 },
    },
  });
}

/** The bot's message in the thread whose actions hold `actionId`, with that button's value. */
async function buttonOf(harness: Harness, channel: string, ts: string, actionId: string) {
  return waitFor(() => {
    for (const message of harness.slack.thread(channel, ts)) {
      const blocks = (message.blocks ?? []) as Array<{
        elements?: Array<{ action_id: string; value: string }>;
      }>;
      const button = blocks
        .flatMap((block) => block.elements ?? [])
        .find((element) => element.action_id === actionId);
      if (button) return { ts: message.ts, value: button.value, text: JSON.stringify(message.blocks) };
    }
    return undefined;
  });
}

const finalAnswer = (harness: Harness, channel: string, ts: string) =>
  waitFor(
    () =>
      harness.slack
        .thread(channel, ts)
        .find((message) => !message.streaming && message.text.startsWith('結果:')),
    20_000,
  );

describe('a server’s questions in a Slack thread (server-everything from npm)', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({
      servers: {
        everything: { command: process.execPath, args: [everythingEntry, 'stdio'], approval: 'auto' },
      },
    });
    harness.llm.respondWith(model);
  }, 60_000);
  afterAll(() => harness?.close());

  it('elicitation: the asker opens a modal built from the schema, fills it, and the server gets the values', async () => {
    const { ts } = await mentionBot(harness, 'C910', 'フォームで聞いて');
    const question = await buttonOf(harness, 'C910', ts, elicitationActions.open);
    expect(question.text).toContain('<@UHUMAN01>');
    // Someone else cannot answer.
    await harness.slack.press({
      channel: 'C910',
      messageTs: question.ts,
      actionId: elicitationActions.open,
      value: question.value,
      user: 'UOTHER01',
    });
    const refused = await waitFor(() =>
      harness.slack.callsOf('chat.postEphemeral').find((call) => call.args.user === 'UOTHER01'),
    );
    expect(String(refused.args.text)).toContain('<@UHUMAN01>');
    await harness.slack.press({
      channel: 'C910',
      messageTs: question.ts,
      actionId: elicitationActions.open,
      value: question.value,
    });
    const opened = await waitFor(() => harness.slack.callsOf('views.open').at(-1));
    const view = opened.args.view as {
      callback_id: string;
      private_metadata: string;
      blocks: Array<Record<string, unknown>>;
    };
    const inputs = view.blocks.filter((block) => block.type === 'input');
    const byLabel = (label: string) =>
      inputs.find((block) => (block.label as { text: string }).text === label) as {
        block_id: string;
        element: Record<string, unknown>;
        optional: boolean;
      };
    // Strings, formats, bounded numbers, booleans, enums with titles, defaults filled in.
    expect(byLabel('String').optional).toBe(false);
    expect(byLabel('String with email format').element.type).toBe('email_text_input');
    expect(byLabel('String with date format').element.type).toBe('datepicker');
    expect(byLabel('Integer').element).toMatchObject({
      type: 'number_input',
      is_decimal_allowed: false,
      min_value: '1',
      max_value: '100',
      initial_value: '42',
    });
    expect(byLabel('String with default').element).toMatchObject({
      initial_value: 'It was a dark and stormy night.',
    });
    expect(byLabel('Boolean').element.type).toBe('checkboxes');
    expect(byLabel('Untitled Single Select Enum').element.type).toBe('static_select');
    await harness.slack.submitView({
      callbackId: view.callback_id,
      privateMetadata: view.private_metadata,
      values: {
        [byLabel('String').block_id]: 'Taro Yamada',
        [byLabel('Integer').block_id]: { type: 'number_input', value: '7' },
        [byLabel('Boolean').block_id]: { type: 'checkboxes', selected_options: [{ value: 'true' }] },
      },
    });
    const answer = await finalAnswer(harness, 'C910', ts);
    expect(answer.text).toContain('User provided the requested information');
    expect(answer.text).toContain('Taro Yamada');
    const updated = harness.slack.thread('C910', ts).find((message) => message.ts === question.ts);
    expect(updated?.text).toMatch(/^✅ <@UHUMAN01> が/);
  }, 40_000);

  it('elicitation the asker declines: the server is told, and the answer says so', async () => {
    const { ts } = await mentionBot(harness, 'C911', 'フォームで聞いて');
    const question = await buttonOf(harness, 'C911', ts, elicitationActions.decline);
    await harness.slack.press({
      channel: 'C911',
      messageTs: question.ts,
      actionId: elicitationActions.decline,
      value: question.value,
    });
    const answer = await finalAnswer(harness, 'C911', ts);
    expect(answer.text).toContain('User declined');
  }, 40_000);

  it('sampling: the asker approves with the approval buttons, then the turn’s model answers the server', async () => {
    const { ts } = await mentionBot(harness, 'C912', 'サンプリングして');
    const approval = await buttonOf(harness, 'C912', ts, approvalActions.approve);
    expect(approval.text).toContain('everything');
    expect(approval.text).toContain('モデルに次のメッセージへの回答を求めています');
    expect(approval.text).toContain('要約して');
    await harness.slack.press({
      channel: 'C912',
      messageTs: approval.ts,
      actionId: approvalActions.approve,
      value: approval.value,
    });
    const answer = await finalAnswer(harness, 'C912', ts);
    expect(answer.text).toContain('サーバー向けの要約です');
  }, 40_000);

  it('/assistant prompt without a required argument lists what it needs, with the server’s suggestions', async () => {
    const reply = async (text: string) => {
      const before = harness.slack.responses.length;
      await harness.slack.command(text);
      return String((await waitFor(() => harness.slack.responses[before])).text);
    };
    const first = await reply('prompt everything/completable-prompt');
    expect(first).toContain('`everything/completable-prompt` needs:');
    expect(first).toContain('`department=Engineering` `department=Sales`');
    // What is given is the server's context for the next suggestion.
    const second = await reply('prompt everything/completable-prompt department=Sales');
    expect(second).toContain('`name=David` `name=Eve` `name=Frank`');
    expect(second).not.toContain('department=');
  }, 30_000);

  it('images a tool returns are posted in the thread as files (Slack’s upload flow)', async () => {
    const { ts } = await mentionBot(harness, 'C913', '画像を見せて');
    await finalAnswer(harness, 'C913', ts);
    const file = await waitFor(() => harness.slack.files.find((entry) => entry.threadTs === ts));
    expect(file).toMatchObject({ channel: 'C913', filename: 'get-tiny-image-1.png' });
    // The bytes are the PNG the tool returned.
    expect(file.bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(harness.slack.callsOf('files.getUploadURLExternal')[0]?.args).toMatchObject({
      filename: 'get-tiny-image-1.png',
    });
  }, 30_000);

  it('a file a tool returns (an embedded blob resource) is posted in the thread, named after its URI (issue 30)', async () => {
    const { ts } = await mentionBot(harness, 'C914', 'ファイルをちょうだい');
    await finalAnswer(harness, 'C914', ts);
    const file = await waitFor(() => harness.slack.files.find((entry) => entry.threadTs === ts));
    expect(file).toMatchObject({ channel: 'C914', filename: '2.txt' });
    expect(file.bytes.toString('utf8')).toMatch(/^Resource 2: This is a base64 blob/);
  }, 30_000);
});
