import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { botUserId, completion, type FakeRequest } from '@ai-assistant/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, waitFor } from './harness.js';

const knowledgeEntry = resolve(import.meta.dirname, '../../../mcp_servers/knowledge/dist/index.js');
const channel = 'C0TEAM';
const otherChannel = 'C0ELSE';

/**
 * A model that calls the host's conversation tool or reads its counts resource when asked to, and
 * otherwise answers with what it was given (the last message, or the tool's result).
 */
function model(request: FakeRequest) {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: string | null }>;
  const last = messages.at(-1);
  if (last?.role === 'tool') return completion(request, { text: `結果: ${last.content}` });
  const question = last?.content ?? '';
  if (question.includes('my history'))
    return completion(request, {
      toolCall: { name: 'host__get_conversation_history', arguments: { conversations: 10 } },
    });
  if (question.includes('the counts'))
    return completion(request, {
      toolCall: { name: 'host__read_resource', arguments: { server: 'host', uri: 'host://conversations' } },
    });
  return completion(request, { text: `了解: ${question.slice(0, 2000)}` });
}

describe('conversation history and summaries from the store (issue 31)', () => {
  let harness: Harness;
  let docs: string;
  beforeAll(async () => {
    // The shipped knowledge server has resources, so the host's resource tools are offered (as they
    // are in the shipped config); they then reach the host's counts resource too.
    docs = mkdtempSync(join(tmpdir(), 'conversation-docs-'));
    writeFileSync(join(docs, 'notes.md'), '# Notes\n\nNothing about conversations.\n');
    harness = await startHarness({
      servers: { kb: { command: process.execPath, args: [knowledgeEntry, '--docs', docs] } },
    });
    harness.llm.respondWith(model);
    harness.slack.setPerson('U_ALICE', { team: 'T0001' });
    harness.slack.setPerson('U_BOB', { team: 'T0001' });
    harness.slack.setPerson('U_CAROL', { team: 'T0002' });
  }, 60_000);
  afterAll(async () => {
    await harness?.close();
    rmSync(docs, { recursive: true, force: true, maxRetries: 5 });
  });

  /** Mentions the bot and waits for its final answer in that thread. */
  const ask = async (text: string, user: string, where = channel, threadTs?: string) => {
    // Finished answers only: a placeholder ("順番待ち…") the bot posts before this count is no answer.
    const answers = (thread: string) =>
      harness.slack
        .thread(where, thread)
        .filter(
          (message) => message.user === botUserId && !message.streaming && /^(結果|了解)/.test(message.text),
        );
    const before = threadTs ? answers(threadTs).length : 0;
    const { ts } = await harness.slack.mention(where, text, { user, ...(threadTs ? { threadTs } : {}) });
    const thread = threadTs ?? ts;
    const answer = await waitFor(() => answers(thread)[before], 15_000);
    return { ts: thread, text: answer.text };
  };
  const command = async (text: string, user: string, where = channel) => {
    const before = harness.slack.responses.length;
    await harness.slack.command(text, { user, channel: where });
    return String((await waitFor(() => harness.slack.responses[before])).text);
  };

  let aliceThread = '';
  it('people talk with the bot: each person, each workspace', async () => {
    aliceThread = (await ask('合言葉は APPLE-17 です', 'U_ALICE')).ts;
    await ask('続き: 予算は三百万円', 'U_ALICE', channel, aliceThread);
    await ask('BANANA-29 の件です', 'U_BOB');
    await ask('CHERRY-41 の件です', 'U_CAROL', 'C0OTHERWS');
  }, 60_000);

  it('the history tool gives the asker their own conversations, never another person’s or workspace’s', async () => {
    const alice = await ask('show my history', 'U_ALICE');
    expect(alice.text).toContain('APPLE-17');
    expect(alice.text).toContain('予算は三百万円');
    expect(alice.text).not.toContain('BANANA-29');
    expect(alice.text).not.toContain('CHERRY-41');

    const bob = await ask('show my history', 'U_BOB');
    expect(bob.text).toContain('BANANA-29');
    expect(bob.text).not.toContain('APPLE-17');
    expect(bob.text).not.toContain('CHERRY-41');

    const carol = await ask('show my history', 'U_CAROL', 'C0OTHERWS');
    expect(carol.text).toContain('CHERRY-41');
    expect(carol.text).not.toContain('APPLE-17');
    expect(carol.text).not.toContain('BANANA-29');
  }, 60_000);

  it('the conversations resource holds counts only, never text', async () => {
    const { text } = await ask('read the counts', 'U_BOB');
    const counts = JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1)) as Record<
      string,
      unknown
    >;
    // Bob: his two questions and their answers, in two threads; the workspace has Alice's too.
    expect(counts.yourThreads).toBe(3);
    expect(counts.workspaceThreads).toBeGreaterThan(counts.yourThreads as number);
    expect(counts.retentionDays).toBe(30);
    expect(text).not.toContain('BANANA-29');
    expect(text).not.toContain('APPLE-17');
  }, 30_000);

  it('the summary prompt is listed and fills with the asker’s thread of this channel, and nothing else', async () => {
    expect(await command('prompts', 'U_ALICE')).toContain('host/summarize_conversation');
    const requestsBefore = harness.llm.requests.length;
    // A filled prompt is answered in a new thread of the channel (no ephemeral reply).
    await harness.slack.command(`prompt host/summarize_conversation thread=${aliceThread}`, {
      user: 'U_ALICE',
      channel,
    });
    const request = await waitFor(() =>
      harness.llm.requests
        .slice(requestsBefore)
        .find((entry) => JSON.stringify(entry.body.messages).includes('<conversation>')),
    );
    const sentText = JSON.stringify(request.body.messages);
    expect(sentText).toContain('APPLE-17');
    expect(sentText).toContain('予算は三百万円');
    expect(sentText).not.toContain('BANANA-29');
  }, 30_000);

  it('a summary of a thread the asker took no part in, or of another channel’s, is refused', async () => {
    const link = `https://example.slack.com/archives/${channel}/p${aliceThread.replace('.', '')}`;
    expect(await command(`prompt host/summarize_conversation thread=${link}`, 'U_BOB')).toContain(
      'only summarise a conversation you took part in',
    );
    expect(
      await command(`prompt host/summarize_conversation thread=${link}`, 'U_ALICE', otherChannel),
    ).toContain('in another channel');
    expect(await command('prompt host/summarize_conversation thread=nonsense', 'U_ALICE')).toContain(
      'not a link to a Slack message',
    );
  }, 30_000);
});
