import { botUserId, completion, type FakeRequest } from '@ai-assistant/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { answers, type Harness, startHarness, waitFor } from './harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const other = 'UOTHER01';

/** A model that answers "回答 <n>" and keeps what each request held. */
function numberedAnswers(h: Harness) {
  let count = 0;
  h.llm.respondWith((request: FakeRequest) => completion(request, { text: `回答 ${++count}` }));
}

/** The text of every message of the model request `index` (system prompt left out). */
const sent = (h: Harness, index: number) =>
  ((h.llm.requests[index]?.body.messages ?? []) as Array<{ role: string; content: string }>)
    .filter((message) => message.role !== 'system')
    .map((message) => `${message.role}: ${message.content}`);

/** A person writes in a channel (in a thread) and Slack delivers the `message` event, as it does for any member. */
async function write(h: Harness, channel: string, text: string, threadTs?: string, user = 'UHUMAN01') {
  const ts = h.slack.say(channel, text, { user, ...(threadTs ? { threadTs } : {}) });
  await h.slack.push({
    type: 'message',
    channel,
    channel_type: channel.startsWith('D') ? 'im' : 'channel',
    user,
    text,
    ts,
    event_ts: ts,
    ...(threadTs ? { thread_ts: threadTs } : {}),
  });
  return ts;
}

/** Polls an asynchronous check until it holds (bounded). */
async function until(check: () => Promise<boolean>, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((done) => setTimeout(done, 20));
  }
}

/** Waits (at most 15 s) for the thread's `count`-th finished answer. */
const answeredWithin15s = (h: Harness, channel: string, threadTs: string, count: number) =>
  waitFor(() => answers(h, channel, threadTs).length >= count, 15_000);

describe('thread history under the distributed-app limits (1 read a minute, pages of 15, 429)', () => {
  it('a thread started by people: the mention and three follow-ups within a minute are each answered within 15 s, each request holding the thread so far; a second thread holds nothing of the first', async () => {
    harness = await startHarness({ mcpEnabled: false, slack: { historyLimits: {} } });
    const h = harness;
    numberedAnswers(h);
    const channel = 'C0PLAN';
    // People talk before anyone mentions the bot; Slack delivers their messages, the bot keeps none.
    const root = await write(h, channel, '来週のリリース計画', undefined, other);
    await write(h, channel, '合言葉は ORCHID-42 です', root, other);
    await new Promise((done) => setTimeout(done, 300));
    expect(h.slack.callsOf('conversations.replies')).toHaveLength(0);

    await h.slack.mention(channel, '合言葉は何でしたっけ？', { threadTs: root });
    await answeredWithin15s(h, channel, root, 1);
    expect(sent(h, 0).join('\n')).toContain('ORCHID-42');

    const followUps = ['リリース日はいつ？', '担当は誰？', 'まとめて'];
    for (const [index, text] of followUps.entries()) {
      await write(h, channel, text, root);
      await answeredWithin15s(h, channel, root, index + 2);
    }
    // Each request held the thread so far: the fact, every earlier question and answer, then its own.
    const last = sent(h, 3);
    expect(last[0]).toContain('来週のリリース計画');
    expect(last.join('\n')).toContain('ORCHID-42');
    for (const text of ['合言葉は何でしたっけ？', ...followUps]) expect(last.join('\n')).toContain(text);
    for (const answer of ['回答 1', '回答 2', '回答 3']) expect(last).toContain(`assistant: ${answer}`);
    expect(last.at(-1)).toBe('user: まとめて');
    expect(sent(h, 2).join('\n')).not.toContain('まとめて');
    // One history read (the thread's earlier messages, at the mention); none for the follow-ups; no 429.
    expect(h.slack.callsOf('conversations.replies')).toHaveLength(1);
    expect(h.slack.refusedReads).toHaveLength(0);

    const second = await h.slack.mention(channel, '別の話です。今日は何曜日？');
    await answeredWithin15s(h, channel, second.ts, 1);
    const fresh = sent(h, 4).join('\n');
    expect(fresh).not.toMatch(/ORCHID|リリース|回答/);
    expect(fresh).toContain('今日は何曜日？');
    expect(h.slack.callsOf('conversations.replies')).toHaveLength(1);
  }, 60_000);

  it('the first read refused with 429: the answer comes at once with what the bot has, and the log says so', async () => {
    harness = await startHarness({ mcpEnabled: false, slack: { historyLimits: {} } });
    const h = harness;
    numberedAnswers(h);
    // Another thread's first mention used the minute's one read.
    const first = h.slack.say('C0A', 'スレッドA', { user: other });
    h.slack.say('C0A', '事実A', { user: other, threadTs: first });
    await h.slack.mention('C0A', '事実は？', { threadTs: first });
    await answeredWithin15s(h, 'C0A', first, 1);
    const rootB = h.slack.say('C0B', 'スレッドB', { user: other });
    h.slack.say('C0B', '合言葉は LILY-9', { user: other, threadTs: rootB });
    await h.slack.mention('C0B', '合言葉は？', { threadTs: rootB });
    await answeredWithin15s(h, 'C0B', rootB, 1);
    expect(h.slack.refusedReads.map((read) => read.method)).toEqual(['conversations.replies']);
    const line = h.logger.lines.find((entry) => /rate-limited the thread history read/.test(entry.message));
    expect(line?.fields).toMatchObject({ channel: 'C0B', thread: rootB });
    expect(sent(h, 1).join('\n')).not.toContain('LILY-9');
  }, 60_000);

  it('edits and deletions of recorded messages are applied; uninstalling deletes the workspace’s conversations', async () => {
    harness = await startHarness({ mcpEnabled: false, slack: { historyLimits: {} } });
    const h = harness;
    numberedAnswers(h);
    const channel = 'C0EDIT';
    const { ts: root } = await h.slack.mention(channel, '覚えておいて: 部屋は 301 号室');
    await answeredWithin15s(h, channel, root, 1);
    const wrong = await write(h, channel, '間違い: 締切は金曜', root);
    await answeredWithin15s(h, channel, root, 2);
    await h.slack.push({
      type: 'message',
      subtype: 'message_changed',
      channel,
      hidden: true,
      ts: '1800000000.000100',
      message: {
        type: 'message',
        user: 'UHUMAN01',
        text: `<@${botUserId}> 覚えておいて: 部屋は 512 号室`,
        ts: root,
      },
      previous_message: { type: 'message', user: 'UHUMAN01', text: '…', ts: root },
    });
    await h.slack.push({
      type: 'message',
      subtype: 'message_deleted',
      channel,
      hidden: true,
      ts: '1800000000.000200',
      deleted_ts: wrong,
      previous_message: {
        type: 'message',
        user: 'UHUMAN01',
        text: '間違い: 締切は金曜',
        ts: wrong,
        thread_ts: root,
      },
    });
    const store = h.store;
    if (!store) throw new Error('the harness has a store');
    const thread = `${channel}:${root}`;
    await until(async () => {
      const texts = (await store.conversations.thread('T0001', thread, 50)).map((message) => message.text);
      return texts.some((text) => text.includes('512')) && !texts.some((text) => text.includes('締切'));
    });
    await write(h, channel, '部屋番号は？', root);
    await answeredWithin15s(h, channel, root, 3);
    const held = sent(h, 2).join('\n');
    expect(held).toContain('512 号室');
    expect(held).not.toContain('301 号室');
    expect(held).not.toContain('締切は金曜');
    expect(h.slack.callsOf('conversations.replies')).toHaveLength(0);

    await h.slack.push({ type: 'app_uninstalled' });
    await waitFor(() => h.logger.lines.some((line) => line.message === 'workspace forgotten'));
    expect(await store.conversations.isMember('T0001', thread)).toBe(false);
    expect(await store.conversations.thread('T0001', thread, 50)).toEqual([]);
  }, 60_000);
});

describe('the agent messaging experience (agent_view)', () => {
  it('opening the Messages tab greets once and sets suggested prompts by channel alone; a DM thread without an assistant_app_thread root keeps its history', async () => {
    harness = await startHarness({ slack: { historyLimits: {} } });
    const h = harness;
    const dm = 'D0AGENT1';
    const open = () =>
      h.slack.push({
        type: 'app_home_opened',
        user: 'UHUMAN01',
        channel: dm,
        tab: 'messages',
        event_ts: '1.0',
      });
    await open();
    const prompts = await waitFor(() => h.slack.callsOf('assistant.threads.setSuggestedPrompts')[0]);
    expect(prompts.args.channel_id).toBe(dm);
    expect(prompts.args.thread_ts).toBeUndefined();
    const offered = prompts.args.prompts as Array<{ title: string }>;
    expect(offered.map((prompt) => prompt.title)).toContain('東京の今日の天気は？');
    const greetings = () => h.slack.callsOf('chat.postMessage').filter((call) => call.args.channel === dm);
    expect(greetings()).toHaveLength(1);
    expect(String(greetings()[0]?.args.text)).toMatch(/^こんにちは/);
    await open();
    await waitFor(() => h.slack.callsOf('assistant.threads.setSuggestedPrompts').length >= 2);
    expect(greetings()).toHaveLength(1);

    // The person writes in the DM (the root is their message); the answer is in its thread.
    numberedAnswers(h);
    const question = await write(h, dm, '合言葉は ASTER-5 です。覚えて');
    await answeredWithin15s(h, dm, question, 1);
    await write(h, dm, '合言葉は？', question);
    await answeredWithin15s(h, dm, question, 2);
    expect(sent(h, 1).join('\n')).toContain('ASTER-5');
    expect(sent(h, 1)).toContain('assistant: 回答 1');
    expect(h.slack.callsOf('conversations.replies')).toHaveLength(0);
  }, 60_000);
});
