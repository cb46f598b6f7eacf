import { botUserId, completion } from '@ai-assistant/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { stripMention } from '../src/slack/thread-history.js';
import {
  answered,
  type Harness,
  mention,
  mentionBot,
  sayInChannel,
  startHarness,
  waitFor,
} from './harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const repliesCalls = (h: Harness) => h.slack.callsOf('conversations.replies').length;

describe('the model’s time is bounded', () => {
  it('a hung LLM: every answer slot held, a ninth person in another thread still hears at once, and the deadline frees the slots', async () => {
    harness = await startHarness({ env: { MAX_CONCURRENT_ANSWERS: '8', ANSWER_TIMEOUT_MS: '1500' } });
    const h = harness;
    h.llm.respondWith(() => ({ hang: true }));
    const threads = [];
    for (let index = 0; index < 8; index++)
      threads.push((await mentionBot(h, `CH${index}`, '東京の天気は？')).ts);
    await waitFor(() => h.llm.requests.length >= 8);
    const ninth = await mentionBot(h, 'CH9', '大阪の天気は？');
    // The ninth person gets a word within a second although all eight slots are held.
    await waitFor(
      () =>
        h.slack
          .thread('CH9', ninth.ts)
          .some((message) => message.user === botUserId && /順番待ち/.test(message.text)),
      1000,
    );
    // The deadline aborts the hung requests: each thread gets a plain message, and the ninth is answered.
    for (const [index, ts] of threads.entries())
      await waitFor(() =>
        h.slack
          .thread(`CH${index}`, ts)
          .some((message) => message.text.includes('時間内に回答できませんでした')),
      );
    h.llm.respondWith(() => ({ json: { error: { message: 'unused' } }, status: 500 }));
    await waitFor(() =>
      h.slack.thread('CH9', ninth.ts).some((message) => /時間内|エラー|AI サービス/.test(message.text)),
    );
  }, 30_000);

  it('ac18 a slow tool loop near its deadline still ends in a text answer: no new tools, tool choice "none"', async () => {
    // Each model call takes 600 ms and always asks for the weather again; the answer has 6 s. Before,
    // the loop ran until the deadline aborted it: "時間内に回答できませんでした".
    harness = await startHarness({ env: { ANSWER_TIMEOUT_MS: '6000' } });
    const h = harness;
    h.llm.respondWith(async (request) => {
      await new Promise((done) => setTimeout(done, 600));
      if (request.body.tool_choice === 'none')
        return completion(request, {
          text: 'ここまでの結果では東京は晴れです（全部は確かめられませんでした）',
        });
      return completion(request, {
        toolCall: { name: 'mcp__weather__get_weather', arguments: { location: '東京' } },
      });
    });
    const { ts } = await mentionBot(h, 'C705', '東京の天気は？');
    const answer = await waitFor(
      () =>
        h.slack
          .thread('C705', ts)
          .find((message) => !message.streaming && /ここまでの結果|時間内/.test(message.text)),
      10_000,
    );
    expect(answer.text).toContain('ここまでの結果では東京は晴れです');
    const last = h.llm.requests.at(-1)?.body as {
      tool_choice?: unknown;
      messages: Array<{ content: unknown }>;
    };
    expect(last.tool_choice).toBe('none');
    expect(JSON.stringify(last.messages.at(-1)?.content)).toContain('almost up');
    // Fewer rounds than the tool-call limit: it was the clock that ended them.
    expect(h.llm.requests.length).toBeLessThan(10);
  }, 30_000);

  it('SIGTERM’s grace ends by aborting what still runs, with a word in the thread', async () => {
    harness = await startHarness();
    const h = harness;
    h.llm.respondWith(() => ({ hang: true }));
    const { ts } = await mentionBot(h, 'C700', '東京の天気は？');
    await waitFor(() => h.llm.requests.length >= 1);
    await h.bot.stop(300);
    expect(h.slack.thread('C700', ts).map((message) => message.text)).toContain(
      '⚠️ 再起動のため中断しました。もう一度お試しください。',
    );
  }, 30_000);
});

describe('the Slack side', () => {
  it('a placeholder Slack refuses is logged at error level with Slack’s code', async () => {
    harness = await startHarness();
    harness.slack.failNext('chat.postMessage', 'not_in_channel');
    await mentionBot(harness, 'C701', '東京の天気は？');
    const h = harness;
    const line = await waitFor(() =>
      h.logger.lines.find((entry) => entry.level === 'error' && entry.fields.slackError === 'not_in_channel'),
    );
    expect(line.message).toMatch(/placeholder/);
  }, 30_000);

  it('line breaks survive: code blocks and lists reach the model as written', async () => {
    expect(
      stripMention(`${mention} 次を見て:\n\`\`\`\nconst a = 1;\n\`\`\`\n- 一つ目\n- 二つ目`, botUserId),
    ).toBe('次を見て:\n```\nconst a = 1;\n```\n- 一つ目\n- 二つ目');
    harness = await startHarness();
    const h = harness;
    await mentionBot(h, 'C702', '一行目\n二行目');
    await answered(
      h,
      'C702',
      (await waitFor(() => h.slack.callsOf('chat.postMessage')[0]))?.args.thread_ts as string,
    );
    const sent = JSON.stringify(h.llm.requests[0]?.body.messages);
    expect(sent).toContain('一行目\\n二行目');
  }, 30_000);

  it('long threads are cheap: one reply in an unrelated 5 000-message thread, and an answer in one', async () => {
    harness = await startHarness({ slack: { repliesPageCap: 1000 } });
    const h = harness;
    const unrelated = h.slack.seedThread('C703', 5000);
    const before = repliesCalls(h);
    await sayInChannel(h, 'C703', 'ただの返信', { threadTs: unrelated });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const decideCalls = repliesCalls(h) - before;
    expect(h.llm.requests).toHaveLength(0);
    expect(decideCalls).toBeLessThanOrEqual(1);

    const long = h.slack.seedThread('C704', 5000);
    const start = repliesCalls(h);
    await mentionBot(h, 'C704', '東京の天気は？', long);
    await waitFor(() => h.llm.requests.length >= 2);
    const answerCalls = repliesCalls(h) - start;
    const sent = (h.llm.requests[0]?.body.messages ?? []) as Array<{ role: string; content: string }>;
    const history = sent.filter((message) => message.role === 'user');
    // The last SLACK_HISTORY_LIMIT (20) messages before the question, then the question.
    expect(history.at(-2)?.content).toBe('reply 5000');
    expect(history).toHaveLength(21);
    // Before: 26 calls for each (every page of the thread). Now 1 and 2.
    expect(answerCalls).toBeLessThanOrEqual(3);
  }, 60_000);
});
