import { completion, type FakeRequest } from '@ai-assistant/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, mentionBot, startHarness, waitFor } from './harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** A model that asks the weather server for the week, then answers from its text. */
function weekModel(request: FakeRequest) {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: unknown }>;
  const result = messages.filter((message) => message.role === 'tool').at(-1);
  if (result) return completion(request, { text: '今週の東京の予報です。' });
  return completion(request, {
    toolCall: { name: 'mcp__weather__get_weather', arguments: { location: '東京', date: 'week' } },
  });
}

describe('the week’s forecast in Slack', () => {
  it('#46 the weather chart appears in the thread as an image (the real weather server, recorded JMA data)', async () => {
    harness = await startHarness({ env: { SLACK_STREAMING: 'false' } });
    const running = harness;
    running.llm.respondWith(weekModel);
    const { ts } = await mentionBot(running, 'C0WEEK', '東京の今週の天気は？');
    const file = await waitFor(() => running.slack.files.find((entry) => entry.threadTs === ts), 20_000);
    expect(file).toMatchObject({ channel: 'C0WEEK', filename: 'get_weather-1.png' });
    // A PNG of the chart's size (800 px wide), not a placeholder.
    expect(file.bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(file.bytes.readUInt32BE(16)).toBe(800);
    expect(file.bytes.length).toBeGreaterThan(10_000);
  }, 60_000);
});
