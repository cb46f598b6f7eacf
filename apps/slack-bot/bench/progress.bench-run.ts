import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { completion, type FakeRequest } from '@ai-assistant/test-kit';
import { it } from 'vitest';
import { answers, mentionBot, startHarness, waitFor } from '../test/harness.js';

const everythingEntry = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);
const seconds = 5;
const steps = 250;

/** Runs server-everything's long operation: `steps` progress notifications in `seconds`. */
function model(request: FakeRequest) {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: string | null }>;
  if (messages.at(-1)?.role === 'tool') return completion(request, { text: '結果: done' });
  return completion(request, {
    toolCall: {
      name: 'mcp__everything__trigger-long-running-operation',
      arguments: { duration: seconds, steps },
    },
  });
}

/** One flood in one mode: the Slack calls that showed progress, and the time it took. */
async function flood(streaming: boolean): Promise<{ updates: number; elapsed: number; minGap: number }> {
  const harness = await startHarness({
    env: { SLACK_STREAMING: String(streaming) },
    servers: {
      everything: {
        command: process.execPath,
        args: [everythingEntry, 'stdio'],
        approval: 'auto',
        timeout_ms: 2000,
      },
    },
  });
  try {
    harness.llm.respondWith(model);
    const started = performance.now();
    const { ts } = await mentionBot(harness, 'C990', 'flood');
    await waitFor(
      () => answers(harness, 'C990', ts).find((message) => message.text.startsWith('結果')),
      30_000,
    );
    const elapsed = (performance.now() - started) / 1000;
    const calls = streaming
      ? // Task updates carrying the progress as details.
        harness.slack
          .callsOf('chat.appendStream')
          .filter((call) => JSON.stringify(call.args.chunks ?? []).includes('"details"'))
      : harness.slack
          .callsOf('chat.update')
          .filter((call) => String(call.args.text).includes('trigger-long-running-operation`: '));
    const gaps = calls.slice(1).map((call, index) => call.at - (calls[index]?.at ?? 0));
    return { updates: calls.length, elapsed, minGap: gaps.length > 0 ? Math.min(...gaps) : Number.NaN };
  } finally {
    await harness.close();
  }
}

it('status updates under a flood of progress notifications', async () => {
  const rows: Array<[string, string]> = [
    ['progress notifications sent by the server', `${steps} in ${seconds} s (${steps / seconds}/s)`],
  ];
  for (const [streaming, label] of [
    [true, 'streamed task updates (default; aim: at most 1 a second)'],
    [false, 'placeholder edits (SLACK_STREAMING=false; aim: at most 1 a second)'],
  ] as const) {
    const { updates, elapsed, minGap } = await flood(streaming);
    // Arrival times at the fake differ from send times by a few ms: a gap of 990 ms is one a second.
    rows.push([
      label,
      `${updates} in ${elapsed.toFixed(1)} s, shortest gap ${minGap.toFixed(0)} ms ${updates > 1 && minGap >= 990 ? 'met' : 'MISSED'}`,
    ]);
  }
  const width = Math.max(...rows.map(([label]) => label.length));
  process.stdout.write(
    `\n@ai-assistant/slack-bot tool progress benchmark\n${rows.map(([label, value]) => `| ${label.padEnd(width)} | ${value} |`).join('\n')}\n\n`,
  );
}, 120_000);
