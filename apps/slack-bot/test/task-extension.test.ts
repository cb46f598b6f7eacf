import {
  completion,
  type FakeRequest,
  type ModernTaskServer,
  startModernTaskServer,
} from '@ai-assistant/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { elicitationActions } from '../src/slack/elicitation.js';
import { type Harness, mentionBot, startHarness, waitFor } from './harness.js';

/** The model: runs the survey the question names, then quotes the tool's result. */
function model(request: FakeRequest) {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: string | null }>;
  const last = messages.at(-1);
  if (last?.role === 'tool') return completion(request, { text: `結果: ${last.content}` });
  return completion(request, { toolCall: { name: 'mcp__jobs__survey', arguments: { topic: '梅雨' } } });
}

// #45: a 2026-07-28 server of the tasks extension, in a Slack thread: the task's question reaches the
// asker as the same button and modal as any server's question, and the task's result is the answer.
describe('#45 a tool that runs as a 2026-07-28 task (tasks extension) in a Slack thread', () => {
  let harness: Harness;
  let jobs: ModernTaskServer;

  beforeAll(async () => {
    jobs = await startModernTaskServer();
    harness = await startHarness({
      servers: { jobs: { url: jobs.url, approval: 'auto' } },
      mcpEnv: { WORKSPACE_SERVERS_ALLOW: '127.0.0.1' },
    });
    harness.llm.respondWith(model);
  }, 60_000);
  afterAll(async () => {
    await harness?.close();
    jobs?.close();
  });

  it('#45 the question inside the task is answered in the modal; the result is posted', async () => {
    const { ts } = await mentionBot(harness, 'C4502', '梅雨のアンケートを取って');
    const question = await waitFor(() => {
      for (const message of harness.slack.thread('C4502', ts)) {
        const found = ((message.blocks ?? []) as Array<{ elements?: Array<Record<string, string>> }>)
          .flatMap((block) => block.elements ?? [])
          .find((element) => element.action_id === elicitationActions.open);
        if (found)
          return { ts: message.ts, shown: JSON.stringify(message.blocks), value: found.value as string };
      }
      return undefined;
    }, 20_000);
    expect(question.shown).toContain('Share the survey on 梅雨 with the team?');
    const opened = harness.slack.callsOf('views.open').length;
    await harness.slack.press({
      channel: 'C4502',
      messageTs: question.ts,
      actionId: elicitationActions.open,
      value: question.value,
    });
    const view = (await waitFor(() => harness.slack.callsOf('views.open')[opened])).args.view as {
      callback_id: string;
      private_metadata: string;
      blocks: Array<{ type: string; block_id?: string }>;
    };
    const share = view.blocks.find((block) => block.type === 'input');
    await harness.slack.submitView({
      callbackId: view.callback_id,
      privateMetadata: view.private_metadata,
      values: {
        [share?.block_id as string]: { type: 'checkboxes', selected_options: [{ value: 'true' }] },
      },
    });
    const answer = await waitFor(
      () =>
        harness.slack
          .thread('C4502', ts)
          .find((message) => !message.streaming && message.text.startsWith('結果:'))?.text,
      20_000,
    );
    expect(answer).toBe('結果: survey on 梅雨: shared');
    const taskId = await jobs.taskOn('梅雨');
    expect(jobs.tasks.get(taskId)?.status).toBe('completed');
    // tasks/get, tasks/update went with the task's id as Mcp-Name, each declaring the extension.
    const taskRequests = jobs.requests.filter((request) => request.method.startsWith('tasks/'));
    expect(taskRequests.map((request) => request.method)).toContain('tasks/update');
    expect(taskRequests.every((request) => request.name === taskId && request.declared)).toBe(true);
  }, 40_000);
});
