import { botUserId, completion, type FakeRequest, weatherModel } from '@ai-assistant/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness, waitFor } from './harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const dm = 'D0ASSIST1';

/** Slack opens an assistant thread in the pane: the app's greeting starts it. */
async function startThread(h: Harness, user = 'UHUMAN01') {
  const threadTs = h.slack.say(dm, 'assistant thread', { user: botUserId });
  await h.slack.push({
    type: 'assistant_thread_started',
    assistant_thread: {
      user_id: user,
      context: { channel_id: 'C0VIEWING', team_id: 'T0001', enterprise_id: null },
      channel_id: dm,
      thread_ts: threadTs,
    },
    event_ts: threadTs,
  });
  return threadTs;
}

/** The person writes in the assistant thread (a message.im with thread_ts). */
async function ask(h: Harness, threadTs: string, text: string) {
  const ts = h.slack.say(dm, text, { threadTs });
  await h.slack.push({
    type: 'message',
    channel: dm,
    channel_type: 'im',
    user: 'UHUMAN01',
    text,
    ts,
    thread_ts: threadTs,
    event_ts: ts,
  });
  return ts;
}

const statuses = (h: Harness) =>
  h.slack.callsOf('assistant.threads.setStatus').map((call) => String(call.args.status));

describe('Slack’s assistant surface, over Socket Mode', () => {
  it('a started thread gets a greeting and suggested prompts from the servers; a question shows status, gets a title and its answer', async () => {
    harness = await startHarness();
    const h = harness;
    // A model that thinks for a while first, so the tool's status is due when the tool starts.
    h.llm.respondWith(async (request: FakeRequest) => {
      const asked = !(request.body.messages as Array<{ role: string }>).some(
        (message) => message.role === 'tool',
      );
      if (asked) await new Promise((resolve) => setTimeout(resolve, 1100));
      return weatherModel(request);
    });
    const threadTs = await startThread(h);
    const prompts = await waitFor(() => h.slack.callsOf('assistant.threads.setSuggestedPrompts')[0]);
    const offered = prompts.args.prompts as Array<{ title: string; message: string }>;
    expect(offered.map((prompt) => prompt.title)).toContain('東京の今日の天気は？');
    expect(offered.find((prompt) => prompt.title === '東京の今日の天気は？')?.message).toBe(
      '東京の今日の天気は？',
    );
    expect(offered.length).toBeLessThanOrEqual(4);
    expect(prompts.args).toMatchObject({ channel_id: dm, thread_ts: threadTs });
    expect(h.slack.thread(dm, threadTs).some((message) => message.text.startsWith('こんにちは'))).toBe(true);

    await ask(h, threadTs, '東京の今日の天気は？');
    const answer = await waitFor(() =>
      h.slack
        .thread(dm, threadTs)
        .find(
          (message) =>
            message.user === botUserId && !message.streaming && message.text.includes('晴れ時々くもり'),
        ),
    );
    expect(answer.thread_ts).toBe(threadTs);
    // Status says it heard; the weather call is a task of the streamed answer (running, then done),
    // with the server's status message; no placeholder message.
    expect(statuses(h)).toEqual(['考えています…']);
    expect(answer.tasks?.map((task) => [task.title, task.status])).toEqual([
      ['🌤️ 天気を調べています…', 'in_progress'],
      ['🌤️ 天気を調べています…', 'complete'],
    ]);
    expect(h.slack.thread(dm, threadTs).some((message) => /考えています/.test(message.text))).toBe(false);
    expect(h.slack.callsOf('assistant.threads.setTitle')[0]?.args).toMatchObject({
      channel_id: dm,
      thread_ts: threadTs,
      title: '東京の今日の天気は？',
    });
  }, 30_000);

  it('the greeting follows the person’s locale where Slack gives it', async () => {
    harness = await startHarness();
    const h = harness;
    h.slack.setLocale('UENGLISH1', 'en-US');
    const threadTs = await startThread(h, 'UENGLISH1');
    await waitFor(() => h.slack.callsOf('assistant.threads.setSuggestedPrompts')[0]);
    expect(h.slack.thread(dm, threadTs).some((message) => message.text.startsWith('Hi!'))).toBe(true);
  }, 30_000);

  it('a workspace whose setStatus and setSuggestedPrompts answer an error still gets its answer; each is logged once', async () => {
    harness = await startHarness();
    const h = harness;
    for (let index = 0; index < 20; index++)
      h.slack.failNext('assistant.threads.setStatus', 'feature_not_enabled');
    h.slack.failNext('assistant.threads.setSuggestedPrompts', 'feature_not_enabled');
    const threadTs = await startThread(h);
    await ask(h, threadTs, '東京の今日の天気は？');
    await waitFor(() =>
      h.slack
        .thread(dm, threadTs)
        .some(
          (message) =>
            message.user === botUserId && !message.streaming && message.text.includes('晴れ時々くもり'),
        ),
    );
    const refused = h.logger.lines.filter((line) =>
      line.message.startsWith('Slack refused an assistant call'),
    );
    expect(refused.map((line) => line.fields.method).sort()).toEqual([
      'assistant.threads.setStatus',
      'assistant.threads.setSuggestedPrompts',
    ]);
  }, 30_000);

  it('the throttle: a turn with 10 tool calls makes at most one status call a second (placeholder path)', async () => {
    // Streamed answers show tools as tasks, not statuses: the throttle is the non-streaming path's.
    harness = await startHarness({ env: { SLACK_STREAMING: 'false' } });
    const h = harness;
    // Ten rounds of one weather call each, then the answer.
    h.llm.respondWith((request: FakeRequest) => {
      const results = (request.body.messages as Array<{ role: string }>).filter(
        (message) => message.role === 'tool',
      );
      if (results.length >= 10) return completion(request, { text: '十回調べました。' });
      return completion(request, {
        toolCall: { name: 'mcp__weather__get_weather', arguments: { location: '東京' } },
      });
    });
    const threadTs = await startThread(h);
    const started = Date.now();
    await ask(h, threadTs, '十回調べて');
    await waitFor(() =>
      h.slack.thread(dm, threadTs).some((message) => message.text.includes('十回調べました')),
    );
    const elapsedSeconds = (Date.now() - started) / 1000;
    const calls = h.slack.callsOf('assistant.threads.setStatus').length;
    expect(h.llm.requests.length).toBeGreaterThanOrEqual(11);
    // The first call goes at once; after that, one per full second at most.
    expect(calls).toBeLessThanOrEqual(1 + Math.floor(elapsedSeconds));
    expect(calls).toBeLessThan(11);
  }, 30_000);
});
