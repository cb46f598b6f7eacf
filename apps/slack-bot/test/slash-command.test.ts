import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parsePromptArguments } from '@ai-assistant/host-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const knowledgeEntry = resolve(import.meta.dirname, '../../../mcp_servers/knowledge/dist/index.js');

describe('/assistant slash command', () => {
  let harness: Harness;
  let docs: string;
  beforeAll(async () => {
    docs = mkdtempSync(join(tmpdir(), 'slack-kb-'));
    writeFileSync(
      join(docs, 'deploy.md'),
      '# Deploy process\n\n## Rollback\nRevert the release tag, then redeploy.\n',
    );
    harness = await startHarness({
      servers: { kb: { command: process.execPath, args: [knowledgeEntry, '--docs', docs] } },
      // Every catalog is chosen from, as a large one is: `/assistant tools` then shows a choice.
      env: { TOOLS_OFFER_ALL_UP_TO: '0', TOOLS_OFFERED_MAX: '3' },
    });
  }, 30_000);
  afterAll(async () => {
    await harness?.close();
    rmSync(docs, { recursive: true, force: true, maxRetries: 5 });
  });

  it('/assistant prompts lists the servers’ prompts privately', async () => {
    await harness.slack.command('prompts');
    const [reply] = await waitFor(() => harness.slack.responses.length > 0 && harness.slack.responses);
    expect(reply).toMatchObject({ response_type: 'ephemeral' });
    expect(String(reply?.text)).toContain('`kb/answer_with_context` question=…');
    expect(String(reply?.text)).toContain('`kb/summarize_document` id=…');
  });

  it('/assistant servers shows each server’s state and approval policy privately', async () => {
    const before = harness.slack.responses.length;
    await harness.slack.command('servers');
    const reply = await waitFor(() => harness.slack.responses[before]);
    expect(reply).toMatchObject({ response_type: 'ephemeral' });
    expect(String(reply.text)).toContain(
      '`weather` (stdio) — connected, 1 tool (MCP 2026-07-28); approval: asks before any tool that is not read-only',
    );
    expect(String(reply.text)).toContain('`kb` (stdio) — connected');
  });

  it('#42 /assistant tools <words> shows what a question is offered and why, privately', async () => {
    const before = harness.slack.responses.length;
    await harness.slack.command('tools 明日の東京の天気');
    const reply = await waitFor(() => harness.slack.responses[before]);
    expect(reply).toMatchObject({ response_type: 'ephemeral' });
    const text = String(reply.text);
    expect(text).toMatch(/“明日の東京の天気” is offered \d+ of your \d+ tools/);
    expect(text).toMatch(/• `mcp__weather__get_weather` — .*_\(words: [^)]*weather/);
    expect(text).toContain('`host__find_tools`');
  });

  it("#42 a thread's used tools stay offered to its next question, across the recorded conversation", async () => {
    const channel = 'C0TOOLS';
    const root = await mentionBot(harness, channel, `${mention} 東京の天気を教えて`);
    await answered(harness, channel, root.ts, 1);
    const asked = harness.llm.requests.length;
    // The follow-up names no tool: only the thread's used tool and the search tool are offered.
    await sayInChannel(harness, channel, 'ありがとう！', { threadTs: root.ts });
    await answered(harness, channel, root.ts, 2);
    const followUp = harness.llm.requests.slice(asked)[0];
    const offered = ((followUp?.body.tools ?? []) as Array<{ function: { name: string } }>).map(
      (tool) => tool.function.name,
    );
    expect(offered).toEqual(['mcp__weather__get_weather', 'host__find_tools']);
  });

  it('/assistant prompt fills the prompt and answers it in a new thread', async () => {
    await harness.slack.command('prompt answer_with_context question="how do we roll back"', {
      channel: 'C0CMD',
    });
    const header = await waitFor(() =>
      harness.slack
        .callsOf('chat.postMessage')
        .find((call) => String(call.args.text).includes('ran the prompt')),
    );
    expect(header.args).toMatchObject({
      channel: 'C0CMD',
      text: '🧩 <@UHUMAN01> ran the prompt `kb/answer_with_context`',
    });
    // The filled prompt (passages included) is answered (streamed) in the thread under that message.
    const thread = String(
      (
        await waitFor(() =>
          harness.slack
            .callsOf('chat.postMessage')
            .find((call) => call.args.channel === 'C0CMD' && call.args.thread_ts),
        )
      ).args.thread_ts,
    );
    const answer = await waitFor(() =>
      answers(harness, 'C0CMD', thread).find((message) => message.text.includes('ツールなしで答えます')),
    );
    expect(answer.text).toContain('Revert the release tag');
    const placeholder = harness.slack
      .callsOf('chat.postMessage')
      .find((call) => call.args.channel === 'C0CMD' && call.args.thread_ts);
    expect(placeholder?.args.text).toBe('💭 考えています…');
  });

  it('unknown prompts and bad usage get a private hint', async () => {
    const before = harness.slack.responses.length;
    await harness.slack.command('prompt nope');
    await harness.slack.command('dance');
    const replies = await waitFor(
      () => harness.slack.responses.length >= before + 2 && harness.slack.responses.slice(before),
    );
    // Each command is answered on its own (a prompt first reads the asker's view): in either order.
    const texts = replies.map((reply) => String(reply.text));
    expect(texts.some((text) => text.includes('No prompt named `nope`'))).toBe(true);
    expect(texts.some((text) => text.includes('/assistant prompts') && !text.includes('nope'))).toBe(true);
  });

  it('parses key=value arguments with quotes', () => {
    expect(parsePromptArguments('question="two words" id=deploy.md')).toEqual({
      question: 'two words',
      id: 'deploy.md',
    });
  });
});
