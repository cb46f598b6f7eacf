import { completion, type FakeRequest, startTaskServer, type TaskServer } from '@ai-assistant/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { longTaskActions } from '../src/slack/long-tasks.js';
import { type Harness, mentionBot, startHarness, waitFor } from './harness.js';

let harness: Harness | undefined;
let tasks: TaskServer | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  tasks?.close();
  tasks = undefined;
});

/** A model that starts the research tool, then answers with whatever the tool said. */
function researchModel(request: FakeRequest) {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: string | null }>;
  const result = messages.filter((message) => message.role === 'tool').at(-1);
  if (result) return completion(request, { text: `途中経過: ${result.content}` });
  return completion(request, {
    toolCall: { name: 'mcp__research__long_report', arguments: { topic: '東京の降水量' } },
  });
}

/** The bot's messages in a thread, as text. */
const threadTexts = (running: Harness, channel: string, threadTs: string) =>
  running.slack.thread(channel, threadTs).map((message) => message.text);

async function start(env: Record<string, string> = {}): Promise<Harness> {
  tasks = await startTaskServer();
  harness = await startHarness({
    // The answer must end within 2 s: its wrap-up comes while the task still works.
    env: { ANSWER_TIMEOUT_MS: '2000', SLACK_STREAMING: 'false', SCHEDULE_TICK_MS: '100', ...env },
    servers: { research: { url: tasks.url } },
  });
  harness.llm.respondWith(researchModel);
  return harness;
}

describe('tasks that outlive their answer', () => {
  it('#47 a task still working when the answer ends goes on; its result is posted in the thread when it completes', async () => {
    const running = await start();
    const server = tasks as TaskServer;
    const asked = await mentionBot(running, 'C0TASKS', '東京の降水量を調べて');
    const taskId = await server.created();
    // The answer is posted while the task works; the thread says it goes on, with a Cancel button.
    const notice = await waitFor(() =>
      running.slack
        .thread('C0TASKS', asked.ts)
        .find((message) => JSON.stringify(message.blocks ?? []).includes(longTaskActions.cancel)),
    );
    expect(notice.text).toContain('回答のあとも続けています');
    expect(
      threadTexts(running, 'C0TASKS', asked.ts).some((text) => text.includes('goes on as a background task')),
    ).toBe(true);
    expect(server.tasks.get(taskId)?.status).toBe('working');
    const recorded = await running.store.longTasks.get(recordedIds(running)[0] ?? '');
    expect(recorded).toMatchObject({ state: 'running', person: 'UHUMAN01', taskId });

    server.complete(taskId);
    await waitFor(() =>
      threadTexts(running, 'C0TASKS', asked.ts).find((text) => text.includes('report on 東京の降水量: done')),
    );
    expect(threadTexts(running, 'C0TASKS', asked.ts).join('\n')).toContain('✅');
    // The Cancel button is gone once it ended.
    await waitFor(() =>
      running.slack
        .thread('C0TASKS', asked.ts)
        .every((message) => !JSON.stringify(message.blocks ?? []).includes(longTaskActions.cancel)),
    );
  }, 60_000);

  it('#47 after a restart the task is followed again and its result posted; only its person may cancel one', async () => {
    const running = await start();
    const server = tasks as TaskServer;
    const asked = await mentionBot(running, 'C0RESTART', '東京の降水量を調べて');
    const taskId = await server.created();
    await waitFor(() =>
      threadTexts(running, 'C0RESTART', asked.ts).find((text) => text.includes('続けています')),
    );
    await running.restart();
    server.complete(taskId);
    await waitFor(
      () =>
        threadTexts(running, 'C0RESTART', asked.ts).find((text) =>
          text.includes('report on 東京の降水量: done'),
        ),
      20_000,
    );
    expect(
      threadTexts(running, 'C0RESTART', asked.ts).filter((text) =>
        text.includes('report on 東京の降水量: done'),
      ),
    ).toHaveLength(1);

    // A second task: someone else's Cancel is refused; the asker's cancels it on the server.
    const again = await mentionBot(running, 'C0CANCEL', '東京の降水量を調べて');
    const notice = await waitFor(() =>
      running.slack
        .thread('C0CANCEL', again.ts)
        .find((message) => JSON.stringify(message.blocks ?? []).includes(longTaskActions.cancel)),
    );
    const value = String(
      (notice.blocks as Array<{ elements?: Array<{ value?: string }> }>).find((block) => block.elements)
        ?.elements?.[0]?.value,
    );
    const secondTask = [...server.tasks.keys()].at(-1) ?? '';
    await running.slack.press({
      channel: 'C0CANCEL',
      messageTs: notice.ts,
      actionId: longTaskActions.cancel,
      value,
      user: 'U0MALLORY',
    });
    await waitFor(() =>
      running.slack
        .callsOf('chat.postEphemeral')
        .find((call) => String(call.args.text).includes('can cancel it')),
    );
    expect(server.tasks.get(secondTask)?.status).toBe('working');
    await running.slack.press({
      channel: 'C0CANCEL',
      messageTs: notice.ts,
      actionId: longTaskActions.cancel,
      value,
    });
    await waitFor(() =>
      threadTexts(running, 'C0CANCEL', again.ts).find((text) => text.includes('取り消しました')),
    );
    expect(server.tasks.get(secondTask)?.status).toBe('cancelled');
  }, 90_000);
});

describe('following a task through its server’s trouble', () => {
  it('#47 a follow that fails for a while (its server restarting) looks again; a sixth failure in a row ends the task', async () => {
    const running = await start({ LONG_TASK_RETRY_MS: '20' });
    const server = tasks as TaskServer;
    const asked = await mentionBot(running, 'C0RETRY', '東京の降水量を調べて');
    const taskId = await server.created();
    await waitFor(() =>
      threadTexts(running, 'C0RETRY', asked.ts).find((text) => text.includes('続けています')),
    );
    // Before: the first failed tasks/get ended the task ("結果を受け取れませんでした") for good.
    await server.failGets(3);
    server.complete(taskId);
    await waitFor(
      () =>
        threadTexts(running, 'C0RETRY', asked.ts).find((text) =>
          text.includes('report on 東京の降水量: done'),
        ),
      20_000,
    );
    expect(threadTexts(running, 'C0RETRY', asked.ts).join('\n')).not.toContain('受け取れませんでした');

    // A server that does not come back: after five more tries, the sixth failure in a row tells the thread.
    const again = await mentionBot(running, 'C0GONE', '東京の降水量を調べて');
    await waitFor(() =>
      threadTexts(running, 'C0GONE', again.ts).find((text) => text.includes('続けています')),
    );
    void server.failGets(1_000);
    const told = await waitFor(
      () => threadTexts(running, 'C0GONE', again.ts).find((text) => text.includes('受け取れませんでした')),
      20_000,
    );
    expect(told).toContain('the research backend is restarting');
  }, 60_000);
});

/** The ids of the tasks the bot recorded (running or not). */
function recordedIds(running: Harness): string[] {
  const blocks = running.slack
    .callsOf('chat.postMessage')
    .flatMap(
      (call) =>
        (call.args.blocks ?? []) as Array<{ elements?: Array<{ action_id?: string; value?: string }> }>,
    );
  return blocks
    .flatMap((block) => block.elements ?? [])
    .filter((element) => element.action_id === longTaskActions.cancel)
    .map((element) => String(element.value));
}
