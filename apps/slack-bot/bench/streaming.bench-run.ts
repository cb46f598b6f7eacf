import { completion, type FakeRequest, streamedText } from '@ai-assistant/test-kit';
import { it } from 'vitest';
import { answers, mentionBot, startHarness, waitFor } from '../test/harness.js';

const questions = 30;

function percentile(samples: number[], fraction: number): number {
  const sorted = [...samples].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

/**
 * The bot's own time from the model's first token to Slack receiving the first streamed characters:
 * the fake model answers (streamed, OpenAI's wire format) the moment it is asked, and the moment it
 * writes its reply is taken as the first token; the fake Slack stamps each call as it arrives.
 */
it('streaming: the bot’s added time to the first streamed characters', async () => {
  const harness = await startHarness({ mcpEnabled: false });
  try {
    const firstToken = new Map<string, number>();
    harness.llm.respondWith((request: FakeRequest) => {
      const messages = (request.body.messages ?? []) as Array<{ role: string; content: string }>;
      const question = messages.filter((message) => message.role === 'user').at(-1)?.content ?? '';
      firstToken.set(question, performance.now());
      return completion(request, { text: `${question}: ${'とても長い答えです。'.repeat(40)}` });
    });
    const samples: number[] = [];
    for (let index = 0; index < questions; index++) {
      const channel = `C_STREAM${index}`;
      const question = `質問 ${index}`;
      const { ts } = await mentionBot(harness, channel, question);
      await waitFor(() => answers(harness, channel, ts).length > 0, 15_000);
      const started = firstToken.get(question) as number;
      const first = harness.slack.calls.find(
        (call) =>
          /^chat\.(start|append)Stream$/.test(call.method) &&
          call.at >= started &&
          streamedText(call.args).includes(question),
      );
      if (!first) throw new Error(`no streamed text for ${question}`);
      samples.push(first.at - started);
    }
    const p50 = percentile(samples, 0.5);
    const rows: Array<[string, string]> = [
      [
        `added time to the first streamed characters, ${questions} answers (aim: p50 < 300 ms)`,
        `p50 ${p50.toFixed(1)} ms, p99 ${percentile(samples, 0.99).toFixed(1)} ms ${p50 < 300 ? 'met' : 'MISSED'}`,
      ],
      [
        'Slack streaming calls per answer of ~430 characters',
        (
          harness.slack.calls.filter((call) => /^chat\.(start|append|stop)Stream$/.test(call.method)).length /
          questions
        ).toFixed(1),
      ],
    ];
    const width = Math.max(...rows.map(([label]) => label.length));
    process.stdout.write(
      `\n@ai-assistant/slack-bot streaming (fake model on loopback, answers streamed by default)\n${rows.map(([label, value]) => `| ${label.padEnd(width)} | ${value} |`).join('\n')}\n\n`,
    );
  } finally {
    await harness.close();
  }
}, 120_000);
