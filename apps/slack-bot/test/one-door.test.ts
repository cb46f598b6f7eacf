import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { botUserId, completion, type FakeRequest } from '@ai-assistant/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, waitFor } from './harness.js';

const knowledgeEntry = resolve(import.meta.dirname, '../../../mcp_servers/knowledge/dist/index.js');
const passage = 'Revert the release tag, then redeploy.';

/** Reads the deploy document through the host's resource tool, or searches, as the question says. */
function model(request: FakeRequest) {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: string | null }>;
  const last = messages.at(-1);
  if (last?.role === 'tool') return completion(request, { text: `結果: ${last.content}` });
  const question = last?.content ?? '';
  if (question.includes('read the doc'))
    return completion(request, {
      toolCall: { name: 'host__read_resource', arguments: { server: 'kb', uri: 'kb://documents/deploy.md' } },
    });
  if (question.includes('search'))
    return completion(request, {
      toolCall: { name: 'mcp__kb__search_knowledge', arguments: { query: 'rollback' } },
    });
  return completion(request, { text: `ツールなしで答えます: ${question.slice(0, 400)}` });
}

describe('one door: a server the workspace disabled is reached by no path (issue 26)', () => {
  let harness: Harness;
  let docs: string;
  beforeAll(async () => {
    docs = mkdtempSync(join(tmpdir(), 'one-door-docs-'));
    writeFileSync(join(docs, 'deploy.md'), `# Deploy process\n\n## Rollback\n${passage}\n`);
    harness = await startHarness({
      servers: {
        kb: {
          command: process.execPath,
          args: [knowledgeEntry, '--docs', docs],
          auto_context_tool: 'search_knowledge',
        },
      },
    });
    harness.llm.respondWith(model);
    harness.slack.setPerson('U_MEMBER', { team: 'T0001' });
    harness.slack.setPerson('U_ADMIN', { team: 'T0001', admin: true });
  }, 60_000);
  afterAll(async () => {
    await harness?.close();
    rmSync(docs, { recursive: true, force: true, maxRetries: 5 });
  });

  const command = async (text: string, user: string) => {
    const before = harness.slack.responses.length;
    await harness.slack.command(text, { user });
    return String((await waitFor(() => harness.slack.responses[before])).text);
  };
  const answerTo = async (channel: string, text: string) => {
    const { ts } = await harness.slack.mention(channel, text, { user: 'U_MEMBER' });
    return waitFor(() =>
      harness.slack.thread(channel, ts).find(
        (message) =>
          // A finished answer: a streamed one still growing may stop mid-word.
          message.user === botUserId &&
          !message.streaming &&
          /^(結果|ツールなし|（回答が空でした）)/.test(message.text),
      ),
    );
  };
  /** The system prompt of the newest model request that carried `text`. */
  const systemPromptFor = (text: string) => {
    const request = harness.llm.requests.findLast((entry) =>
      JSON.stringify(entry.body.messages).includes(text),
    );
    const messages = (request?.body.messages ?? []) as Array<{ role: string; content: string }>;
    return String(messages[0]?.content ?? '');
  };
  const suggestionsFor = async (user: string) => {
    const before = harness.slack.callsOf('assistant.threads.setSuggestedPrompts').length;
    const threadTs = harness.slack.say('D0ONEDOOR', 'assistant thread', { user: botUserId });
    await harness.slack.push({
      type: 'assistant_thread_started',
      assistant_thread: { user_id: user, context: {}, channel_id: 'D0ONEDOOR', thread_ts: threadTs },
      event_ts: threadTs,
    });
    const call = await waitFor(() => harness.slack.callsOf('assistant.threads.setSuggestedPrompts')[before]);
    return (call.args.prompts as Array<{ title: string }>).map((prompt) => prompt.title);
  };

  it('every path reaches the knowledge server while it is enabled', async () => {
    expect((await answerTo('C1DOOR', 'search the docs')).text).toContain('Revert the release tag');
    expect(systemPromptFor('search the docs')).toContain('Context from kb');
    expect((await answerTo('C2DOOR', 'read the doc please')).text).toContain(passage);
    expect(await command('prompts', 'U_MEMBER')).toContain('kb/answer_with_context');
    const before = harness.llm.requests.length;
    await harness.slack.command('prompt kb/answer_with_context question="how to roll back"', {
      user: 'U_MEMBER',
    });
    await waitFor(() => harness.llm.requests.length > before);
    expect(JSON.stringify(harness.llm.requests.at(-1)?.body.messages)).toContain('Revert the release tag');
    expect(await suggestionsFor('U_MEMBER')).toContain('東京の今日の天気は？');
  }, 60_000);

  it('after an admin disables it: no tool, no resource tool, no prompt, no suggestion, no auto-context', async () => {
    expect(await command('servers disable kb', 'U_ADMIN')).toContain('`kb` is now disabled');
    // The tool and the host's resource tool: neither offered nor callable (before: the resource tool
    // read the document through the shared manager).
    const searched = await answerTo('C3DOOR', 'search the docs again');
    expect(searched.text).not.toContain('Revert the release tag');
    const read = await answerTo('C4DOOR', 'read the doc again');
    expect(read.text).not.toContain(passage);
    const asked = harness.llm.requests.find((request) =>
      JSON.stringify(request.body.messages).includes('read the doc again'),
    );
    const offered = ((asked?.body.tools ?? []) as Array<{ function: { name: string } }>).map(
      (tool) => tool.function.name,
    );
    // The workspace's other server is still offered; nothing of the disabled one is.
    expect(offered).toContain('mcp__weather__get_weather');
    expect(offered).not.toContain('mcp__kb__search_knowledge');
    expect(offered).not.toContain('host__read_resource');
    expect(read.text).toMatch(/no tool named|not available/);
    // No auto-context from it.
    expect(systemPromptFor('read the doc again')).not.toContain('Context from kb');
    // Prompts: neither listed nor run (before: listed, and run with the passages sent to the model).
    expect(await command('prompts', 'U_MEMBER')).not.toContain('kb/');
    expect(await command('prompt kb/answer_with_context question="how to roll back"', 'U_MEMBER')).toContain(
      'No prompt named',
    );
    // Suggestions come from enabled servers only (the knowledge server offers none without arguments;
    // the weather server's go once it is disabled).
    expect(await command('servers disable weather', 'U_ADMIN')).toContain('`weather` is now disabled');
    expect(await suggestionsFor('U_MEMBER')).not.toContain('東京の今日の天気は？');
    expect(
      JSON.stringify(harness.slack.calls.filter((call) => call.method === 'chat.postMessage')),
    ).not.toMatch(/🧩.*ran the prompt `kb\/answer_with_context`.*🧩/s);
  }, 60_000);
});
