import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { completion, type FakeRequest } from '@ai-assistant/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answers, type Harness, mentionBot, startHarness, waitFor } from './harness.js';

const everythingEntry = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);
const longRunning = 'mcp__everything__trigger-long-running-operation';

/** Runs the reference server's long-running operation (3 s in 30 steps), then answers with its result. */
function model(request: FakeRequest) {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: string | null }>;
  const last = messages.at(-1);
  if (last?.role === 'tool') return completion(request, { text: `結果: ${last.content}` });
  return completion(request, { toolCall: { name: longRunning, arguments: { duration: 3, steps: 30 } } });
}

const servers = {
  everything: {
    command: process.execPath,
    args: [everythingEntry, 'stdio'],
    approval: 'auto',
    // Shorter than the operation: only its progress keeps it alive.
    timeout_ms: 1500,
  },
};

describe('tool progress in a Slack thread', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ servers });
    harness.llm.respondWith(model);
  }, 60_000);
  afterAll(() => harness?.close());

  it('streamed (the default): 30 progress notifications become a few task updates with "NN%" details, and the call outlives its 1.5 s timeout', async () => {
    const { ts } = await mentionBot(harness, 'C901', '長い処理を走らせて');
    const answer = await waitFor(() =>
      answers(harness, 'C901', ts).find((message) => message.text.startsWith('結果')),
    );
    expect(answer.text).toMatch(/Long running operation completed/);
    const details = (answer.tasks ?? []).flatMap((task) => (task.details ? [String(task.details)] : []));
    expect(details.length).toBeGreaterThan(0);
    for (const detail of details) expect(detail).toMatch(/^🔧 trigger-long-running-operation: \d{1,3}%/);
    // One update a second at most: 3 s of progress is never 30 appends.
    expect(details.length).toBeLessThanOrEqual(5);
    expect(answer.tasks?.at(-1)?.status).toBe('complete');
  }, 30_000);

  it('with SLACK_STREAMING=false: 30 progress notifications become a few placeholder edits, "🔧 tool: NN%"', async () => {
    const placeholder = await startHarness({ servers, env: { SLACK_STREAMING: 'false' } });
    placeholder.llm.respondWith(model);
    try {
      await placeholderEdits(placeholder);
    } finally {
      await placeholder.close();
    }
  }, 60_000);
});

async function placeholderEdits(harness: Harness) {
  {
    const { ts } = await mentionBot(harness, 'C900', '長い処理を走らせて');
    const answer = await waitFor(() =>
      answers(harness, 'C900', ts).find((message) => message.text.startsWith('結果')),
    );
    expect(answer.text).toMatch(/Long running operation completed/);
    const edits = harness.slack
      .callsOf('chat.update')
      .map((call) => String(call.args.text))
      .filter((text) => text.startsWith('🔧 `trigger-long-running-operation`: '));
    expect(edits.length).toBeGreaterThan(0);
    for (const edit of edits) expect(edit).toMatch(/^🔧 `trigger-long-running-operation`: \d{1,3}%/);
    // One edit a second at most: 3 s of progress is never 30 edits.
    expect(edits.length).toBeLessThanOrEqual(5);
  }
}
