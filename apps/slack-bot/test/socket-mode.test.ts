import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { botUserId } from './fake-slack.js';
import { type Harness, jmaFixturesDir, startHarness, waitFor } from './harness.js';

const skip = jmaFixturesDir ? '' : ' (skipped: recorded JMA data not found at ../shared/fixtures/jma)';
const mention = `<@${botUserId}>`;

/** The bot's final messages in a thread (placeholders that are still "thinking" excluded). */
function answers(harness: Harness, channel: string, threadTs: string) {
  return harness.slack
    .thread(channel, threadTs)
    .filter(
      (message) =>
        message.user === botUserId &&
        !message.text.includes('考えています') &&
        !message.text.includes('調べています'),
    );
}

describe.skipIf(!jmaFixturesDir)(`Slack app over Socket Mode, end to end on loopback${skip}`, () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness();
  }, 30_000);
  afterAll(() => harness?.close());
  afterEach(() => {
    harness.llm.respondWith((request) =>
      import('./weather-model.js').then(({ weatherModel }) => weatherModel(request)),
    );
  });

  it('@bot 東京の天気を教えて → exactly one answer in the mention’s thread, with the forecast', async () => {
    const ts = harness.slack.say('C100', `${mention} 東京の天気を教えて`);
    const envelope = await harness.slack.push({
      type: 'app_mention',
      channel: 'C100',
      user: 'UHUMAN01',
      text: `${mention} 東京の天気を教えて`,
      ts,
      event_ts: ts,
    });
    const [answer] = await waitFor(() => {
      const found = answers(harness, 'C100', ts);
      return found.length > 0 && found;
    });
    expect(answer?.thread_ts).toBe(ts);
    expect(answer?.text).toContain('晴れ時々くもり');
    expect(answer?.text).toContain('*気象庁の予報*'); // Markdown bold rendered as mrkdwn
    expect(harness.slack.acks).toContain(envelope);
    // The placeholder named the tool while it ran, then became the answer.
    expect(harness.slack.callsOf('chat.update').map((call) => call.args.text)).toContain(
      '🌤️ 天気を調べています…',
    );
    expect(harness.slack.thread('C100', ts).filter((message) => message.user === botUserId)).toHaveLength(1);
    // The model got the tool and the thread, not the bot mention.
    const first = harness.llm.requests.at(-2)?.body as {
      messages: Array<{ role: string; content: string }>;
      tools: unknown[];
    };
    expect(first.tools).toHaveLength(1);
    expect(first.messages.at(-1)?.content).toBe('東京の天気を教えて');
  });

  it('answers a direct message', async () => {
    const ts = harness.slack.say('D200', '大阪の明日の天気は？');
    await harness.slack.push({
      type: 'message',
      channel: 'D200',
      channel_type: 'im',
      user: 'UHUMAN01',
      text: '大阪の明日の天気は？',
      ts,
      event_ts: ts,
    });
    const [answer] = await waitFor(() => {
      const found = answers(harness, 'D200', ts);
      return found.length > 0 && found;
    });
    expect(answer?.text).toContain('気象庁');
  });

  it('a retried event is answered once', async () => {
    const ts = harness.slack.say('C300', `${mention} こんにちは`);
    const event = {
      type: 'app_mention',
      channel: 'C300',
      user: 'UHUMAN01',
      text: `${mention} こんにちは`,
      ts,
      event_ts: ts,
    };
    await harness.slack.push(event, { eventId: 'EvRETRY' });
    await harness.slack.push(event, { eventId: 'EvRETRY', retryAttempt: 1 });
    await waitFor(() => answers(harness, 'C300', ts).length > 0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(answers(harness, 'C300', ts)).toHaveLength(1);
    expect(
      harness.slack.callsOf('chat.postMessage').filter((call) => call.args.thread_ts === ts),
    ).toHaveLength(1);
  });

  it('two messages in one thread are answered in order, the second seeing the first answer', async () => {
    const root = harness.slack.say('C400', `${mention} 最初の質問`);
    const second = harness.slack.say('C400', `${mention} 二つ目の質問`, { threadTs: root });
    await harness.slack.push({
      type: 'app_mention',
      channel: 'C400',
      user: 'UHUMAN01',
      text: `${mention} 最初の質問`,
      ts: root,
      event_ts: root,
    });
    await harness.slack.push({
      type: 'app_mention',
      channel: 'C400',
      user: 'UHUMAN01',
      text: `${mention} 二つ目の質問`,
      ts: second,
      thread_ts: root,
      event_ts: second,
    });
    const replies = await waitFor(() => {
      const found = answers(harness, 'C400', root);
      return found.length === 2 && found;
    });
    expect(replies.map((reply) => reply.text)).toEqual([
      'ツールなしで答えます: 最初の質問',
      'ツールなしで答えます: 二つ目の質問',
    ]);
    const secondRequest = harness.llm.requests.at(-1)?.body as {
      messages: Array<{ role: string; content: string }>;
    };
    expect(secondRequest.messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
    ]);
    expect(secondRequest.messages[2]?.content).toBe('ツールなしで答えます: 最初の質問');
  });

  it('answers a follow-up in its thread without a new mention, and ignores bots, edits and threads it is not in', async () => {
    const root = harness.slack.say('C500', `${mention} 東京の天気`);
    await harness.slack.push({
      type: 'app_mention',
      channel: 'C500',
      user: 'UHUMAN01',
      text: `${mention} 東京の天気`,
      ts: root,
      event_ts: root,
    });
    await waitFor(() => answers(harness, 'C500', root).length === 1);
    const followUp = harness.slack.say('C500', 'じゃあ八丈島は？', { threadTs: root });
    await harness.slack.push({
      type: 'message',
      channel: 'C500',
      channel_type: 'channel',
      user: 'UHUMAN01',
      text: 'じゃあ八丈島は？',
      ts: followUp,
      thread_ts: root,
      event_ts: followUp,
    });
    await harness.slack.push({
      type: 'message',
      subtype: 'bot_message',
      channel: 'C500',
      bot_id: 'BOTHER',
      text: 'other bot',
      ts: followUp,
      thread_ts: root,
    });
    await harness.slack.push({
      type: 'message',
      subtype: 'message_changed',
      channel: 'C500',
      ts: followUp,
      thread_ts: root,
    });
    const replies = await waitFor(() => {
      const found = answers(harness, 'C500', root);
      return found.length === 2 && found;
    });
    expect(replies[1]?.text).toContain('伊豆諸島南部');
    const stranger = harness.slack.say('C600', 'no bot here');
    const reply = harness.slack.say('C600', 'still no bot', { threadTs: stranger });
    const before = harness.llm.requests.length;
    await harness.slack.push({
      type: 'message',
      channel: 'C600',
      channel_type: 'channel',
      user: 'UHUMAN01',
      text: 'still no bot',
      ts: reply,
      thread_ts: stranger,
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(harness.llm.requests.length).toBe(before);
    expect(answers(harness, 'C500', root)).toHaveLength(2);
  });

  it('an LLM returning 500 gets a polite error in the thread, and the next event is answered', async () => {
    harness.llm.respondWith(() => ({ status: 500, json: { error: { message: 'upstream exploded' } } }));
    const ts = harness.slack.say('C700', `${mention} 東京の天気`);
    await harness.slack.push({
      type: 'app_mention',
      channel: 'C700',
      user: 'UHUMAN01',
      text: `${mention} 東京の天気`,
      ts,
      event_ts: ts,
    });
    const [failure] = await waitFor(() => {
      const found = answers(harness, 'C700', ts);
      return found.length > 0 && found;
    });
    expect(failure?.text).toContain('AI サービスに接続できませんでした');
    expect(failure?.text).not.toContain('upstream exploded');
    expect(harness.logger.lines.some((line) => line.startsWith('error answer failed'))).toBe(true);

    harness.llm.respondWith((request) =>
      import('./weather-model.js').then(({ weatherModel }) => weatherModel(request)),
    );
    const next = harness.slack.say('C700', `${mention} 大阪の天気`);
    await harness.slack.push({
      type: 'app_mention',
      channel: 'C700',
      user: 'UHUMAN01',
      text: `${mention} 大阪の天気`,
      ts: next,
      event_ts: next,
    });
    await waitFor(() => answers(harness, 'C700', next).some((message) => message.text.includes('気象庁')));
  });
});

describe.skipIf(!jmaFixturesDir)(`MCP switched off${skip}`, () => {
  it('ac15 ac17 MCP_ENABLED=false: the model gets no tools and the answer still comes', async () => {
    const harness = await startHarness({ mcpEnabled: false });
    try {
      expect(harness.mcp).toBeUndefined();
      const ts = harness.slack.say('C800', `${mention} 東京の天気を教えて`);
      await harness.slack.push({
        type: 'app_mention',
        channel: 'C800',
        user: 'UHUMAN01',
        text: `${mention} 東京の天気を教えて`,
        ts,
        event_ts: ts,
      });
      const [answer] = await waitFor(() => {
        const found = answers(harness, 'C800', ts);
        return found.length > 0 && found;
      });
      expect(answer?.text).toBe('ツールなしで答えます: 東京の天気を教えて');
      expect(harness.llm.requests.every((request) => !('tools' in request.body))).toBe(true);
    } finally {
      await harness.close();
    }
  }, 30_000);
});

describe.skipIf(!jmaFixturesDir)(`streaming answers (SLACK_STREAMING)${skip}`, () => {
  it('streams the answer with chat.startStream / appendStream / stopStream', async () => {
    const harness = await startHarness({ env: { SLACK_STREAMING: 'true' } });
    try {
      const ts = harness.slack.say('C900', `${mention} 東京の天気を教えて`);
      await harness.slack.push({
        type: 'app_mention',
        channel: 'C900',
        user: 'UHUMAN01',
        text: `${mention} 東京の天気を教えて`,
        ts,
        event_ts: ts,
      });
      await waitFor(() => harness.slack.callsOf('chat.stopStream').length > 0);
      const [streamed] = answers(harness, 'C900', ts);
      expect(streamed?.text).toContain('晴れ時々くもり');
      expect(harness.slack.callsOf('chat.startStream')[0]?.args.thread_ts).toBe(ts);
      const pieces = [
        ...harness.slack.callsOf('chat.startStream'),
        ...harness.slack.callsOf('chat.appendStream'),
      ].map((call) => call.args.markdown_text);
      expect(pieces.join('')).toBe(streamed?.text);
      // The placeholder was removed: one bot message in the thread.
      expect(harness.slack.thread('C900', ts).filter((message) => message.user === botUserId)).toHaveLength(
        1,
      );
    } finally {
      await harness.close();
    }
  }, 30_000);
});
