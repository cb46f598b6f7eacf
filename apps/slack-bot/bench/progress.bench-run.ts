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

it('status updates under a flood of progress notifications', async () => {
  const harness = await startHarness({
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
    const edits = harness.slack
      .callsOf('chat.update')
      .filter((call) => String(call.args.text).includes('trigger-long-running-operation`: ')).length;
    const rows: Array<[string, string]> = [
      ['progress notifications sent by the server', `${steps} in ${seconds} s (${steps / seconds}/s)`],
      [
        'status edits of the thread (aim: at most 1 a second)',
        `${edits} in ${elapsed.toFixed(1)} s (${(edits / elapsed).toFixed(2)}/s) ${edits / elapsed <= 1.05 ? 'met' : 'MISSED'}`,
      ],
    ];
    const width = Math.max(...rows.map(([label]) => label.length));
    process.stdout.write(
      `\n@ai-assistant/slack-bot tool progress benchmark\n${rows.map(([label, value]) => `| ${label.padEnd(width)} | ${value} |`).join('\n')}\n\n`,
    );
  } finally {
    await harness.close();
  }
}, 60_000);
