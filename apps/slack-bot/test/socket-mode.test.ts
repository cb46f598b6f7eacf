import { botUserId, streamedText, weatherModel } from '@ai-assistant/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  answered,
  answers,
  type Harness,
  mention,
  mentionBot,
  sayInChannel,
  startHarness,
  waitFor,
} from './harness.js';

describe('Slack app over Socket Mode, end to end on loopback', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness();
  }, 30_000);
  afterAll(() => harness?.close());
  afterEach(() => harness.llm.respondWith(weatherModel));

  it('@bot 東京の天気を教えて → exactly one answer in the mention’s thread, with the forecast', async () => {
    const { ts, envelope } = await mentionBot(harness, 'C100', '東京の天気を教えて');
    const [answer] = await answered(harness, 'C100', ts);
    expect(answer?.thread_ts).toBe(ts);
    expect(answer?.text).toContain('晴れ時々くもり');
    expect(answer?.text).toContain('*気象庁の予報*'); // Markdown bold rendered as mrkdwn
    expect(harness.slack.acks).toContain(envelope);
    // Streamed (the default): the tool ran as a task of the answer, named by the server's status
    // message; the placeholder went once the stream stopped.
    expect(answer?.tasks?.map((task) => task.title)).toContain('🌤️ 天気を調べています…');
    await waitFor(
      () => harness.slack.thread('C100', ts).filter((message) => message.user === botUserId).length === 1,
    );
    // The model got the weather tool and the host's history tool, and the question without the mention.
    const first = harness.llm.requests.at(-2)?.body as {
      messages: Array<{ content: string }>;
      tools: Array<{ function: { name: string } }>;
    };
    expect(first.tools.map((tool) => tool.function.name).sort()).toEqual([
      'host__get_conversation_history',
      'host__propose_schedule',
      'mcp__weather__get_weather',
    ]);
    expect(first.messages.at(-1)?.content).toBe('東京の天気を教えて');
  });

  it('answers a direct message', async () => {
    const ts = await sayInChannel(harness, 'D200', '大阪の明日の天気は？', { channelType: 'im' });
    const [answer] = await answered(harness, 'D200', ts);
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
    await answered(harness, 'C300', ts);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(answers(harness, 'C300', ts)).toHaveLength(1);
    expect(
      harness.slack.callsOf('chat.postMessage').filter((call) => call.args.thread_ts === ts),
    ).toHaveLength(1);
  });

  it('two messages in one thread are answered in order, the second seeing the first answer', async () => {
    const { ts: root } = await mentionBot(harness, 'C400', '最初の質問');
    await mentionBot(harness, 'C400', '二つ目の質問', root);
    const replies = await answered(harness, 'C400', root, 2);
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
    const { ts: root } = await mentionBot(harness, 'C500', '東京の天気');
    await answered(harness, 'C500', root);
    const followUp = await sayInChannel(harness, 'C500', 'じゃあ八丈島は？', { threadTs: root });
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
    const replies = await answered(harness, 'C500', root, 2);
    expect(replies[1]?.text).toContain('伊豆諸島南部');
    const stranger = harness.slack.say('C600', 'no bot here');
    const before = harness.llm.requests.length;
    await sayInChannel(harness, 'C600', 'still no bot', { threadTs: stranger });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(harness.llm.requests.length).toBe(before);
    expect(answers(harness, 'C500', root)).toHaveLength(2);
  });

  it('an LLM returning 500 gets a polite error in the thread, and the next event is answered', async () => {
    harness.llm.respondWith(() => ({ status: 500, json: { error: { message: 'upstream exploded' } } }));
    const { ts } = await mentionBot(harness, 'C700', '東京の天気');
    const [failure] = await answered(harness, 'C700', ts);
    expect(failure?.text).toContain('AI サービスに接続できませんでした');
    expect(failure?.text).not.toContain('upstream exploded');
    expect(
      harness.logger.lines.some((line) => line.level === 'error' && line.message === 'answer failed'),
    ).toBe(true);

    harness.llm.respondWith(weatherModel);
    const { ts: next } = await mentionBot(harness, 'C700', '大阪の天気');
    const [answer] = await answered(harness, 'C700', next);
    expect(answer?.text).toContain('気象庁');
  });
});

describe('MCP switched off', () => {
  it('ac15 ac17 MCP_ENABLED=false: the model gets no tools and the answer still comes', async () => {
    const harness = await startHarness({ mcpEnabled: false });
    try {
      expect(harness.people.mcpEnabled).toBe(false);
      const { ts } = await mentionBot(harness, 'C800', '東京の天気を教えて');
      const [answer] = await answered(harness, 'C800', ts);
      expect(answer?.text).toBe('ツールなしで答えます: 東京の天気を教えて');
      expect(harness.llm.requests.every((request) => !('tools' in request.body))).toBe(true);
    } finally {
      await harness.close();
    }
  }, 30_000);
});

describe('streaming answers (SLACK_STREAMING)', () => {
  it('streams the answer with chat.startStream / appendStream / stopStream', async () => {
    const harness = await startHarness({ env: { SLACK_STREAMING: 'true' } });
    try {
      const { ts } = await mentionBot(harness, 'C900', '東京の天気を教えて');
      await waitFor(() => harness.slack.callsOf('chat.stopStream').length > 0);
      // The placeholder is deleted right after the stream stops: wait for that too, not just the stop.
      await waitFor(() => harness.slack.callsOf('chat.delete').length > 0);
      const [streamed] = answers(harness, 'C900', ts);
      expect(streamed?.text).toContain('晴れ時々くもり');
      expect(harness.slack.callsOf('chat.startStream')[0]?.args.thread_ts).toBe(ts);
      const pieces = harness.slack.calls.filter((call) =>
        /^chat\.(start|append|stop)Stream$/.test(call.method),
      );
      expect(pieces.map((call) => streamedText(call.args)).join('')).toBe(streamed?.text);
      // In a channel the stream names its recipient, as Slack requires.
      expect(harness.slack.callsOf('chat.startStream')[0]?.args).toMatchObject({
        recipient_user_id: expect.stringMatching(/^U/),
        recipient_team_id: 'T0001',
      });
      // The placeholder was removed: one bot message in the thread.
      expect(harness.slack.thread('C900', ts).filter((message) => message.user === botUserId)).toHaveLength(
        1,
      );
    } finally {
      await harness.close();
    }
  }, 30_000);

  it('a DM is answered with streaming: each tool call a task (running, then done), feedback buttons last; a press is recorded (issue 30)', async () => {
    const harness = await startHarness({ env: { SLACK_STREAMING: 'true' } });
    try {
      const ts = await sayInChannel(harness, 'D0STREAM', '東京の天気を教えて', { channelType: 'im' });
      await waitFor(() => harness.slack.callsOf('chat.stopStream').length > 0);
      const [streamed] = answers(harness, 'D0STREAM', ts);
      expect(streamed?.text).toContain('晴れ時々くもり');
      // The weather call as a task of the timeline: running with the server's status message, then complete.
      expect(harness.slack.callsOf('chat.startStream')[0]?.args.task_display_mode).toBe('timeline');
      expect(streamed?.tasks?.map((task) => [task.title, task.status])).toEqual([
        ['🌤️ 天気を調べています…', 'in_progress'],
        ['🌤️ 天気を調べています…', 'complete'],
      ]);
      expect(new Set(streamed?.tasks?.map((task) => task.id)).size).toBe(1);
      // While the stream shows the task, the placeholder is not edited to say the same.
      expect(harness.slack.callsOf('chat.update').map((call) => call.args.text)).not.toContain(
        '🌤️ 天気を調べています…',
      );
      // Feedback buttons close the answer; a press is recorded with workspace, person, thread and answer.
      expect(JSON.stringify(streamed?.blocks)).toContain('"feedback_buttons"');
      await harness.slack.press({
        channel: 'D0STREAM',
        messageTs: streamed?.ts as string,
        actionId: 'answer_feedback',
        value: 'negative',
        user: 'UHUMAN01',
      });
      let rows: Awaited<ReturnType<NonNullable<typeof harness.store>['conversations']['feedback']>> = [];
      for (let tries = 0; tries < 200 && rows.length === 0; tries++) {
        rows = (await harness.store?.conversations.feedback('T0001')) ?? [];
        if (rows.length === 0) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const [feedback] = rows;
      expect(feedback).toMatchObject({
        thread: `D0STREAM:${ts}`,
        answer: streamed?.ts,
        person: 'UHUMAN01',
        value: 'negative',
      });
      expect(feedback?.answerText).toContain('晴れ時々くもり');
    } finally {
      await harness.close();
    }
  }, 30_000);

  it('posts the answer as a message when Slack refuses the stream', async () => {
    const harness = await startHarness({ env: { SLACK_STREAMING: 'true' } });
    try {
      harness.slack.failNext('chat.startStream', 'feature_not_enabled');
      const { ts } = await mentionBot(harness, 'C901', '東京の天気を教えて');
      await waitFor(() =>
        answers(harness, 'C901', ts).some((message) => message.text.includes('晴れ時々くもり')),
      );
      // The placeholder became the answer; no half-streamed message is left behind.
      expect(harness.slack.callsOf('chat.stopStream')).toHaveLength(0);
      expect(harness.slack.thread('C901', ts).filter((message) => message.user === botUserId)).toHaveLength(
        1,
      );
      expect(harness.logger.lines.some((line) => line.message.includes('Slack streaming failed'))).toBe(true);
    } finally {
      await harness.close();
    }
  }, 30_000);
});
