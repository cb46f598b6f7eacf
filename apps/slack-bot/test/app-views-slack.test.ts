import { completion, type FakeRequest } from '@ai-assistant/test-kit';
import { afterAll, expect, it } from 'vitest';
import { appViewActions } from '../src/app-views/app-views.js';
import { type Harness, mentionBot, startHarness, waitFor } from './harness.js';

let harness: Harness | undefined;
afterAll(() => harness?.close());

/** Calls the weather week forecast, then answers with its result. */
function weekModel(request: FakeRequest) {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: string }>;
  const last = messages.at(-1);
  if (last?.role === 'tool') return completion(request, { text: String(last.content) });
  return completion(request, {
    toolCall: { name: 'mcp__weather__get_weather', arguments: { location: '東京', date: 'week' } },
  });
}

it('#46 without PUBLIC_URL, Open says why there is no page; the model never reads the view', async () => {
  harness = await startHarness();
  harness.llm.respondWith(weekModel);
  const { ts } = await mentionBot(harness, 'C464', '東京の週間天気は？');
  const offer = await waitFor(() =>
    harness?.slack
      .thread('C464', ts)
      .find((message) => JSON.stringify(message.blocks ?? []).includes(appViewActions.open)),
  );
  const value = JSON.stringify(offer.blocks).match(/"value":"([^"]+)"/)?.[1] ?? '';
  await harness.slack.press({ channel: 'C464', messageTs: offer.ts, actionId: appViewActions.open, value });
  const told = await waitFor(() => harness?.slack.callsOf('chat.postEphemeral')[0]);
  expect(told.args).toMatchObject({ user: 'UHUMAN01', text: expect.stringContaining('PUBLIC_URL') });
  expect(String(told.args.text)).not.toContain('http');
  // What the model was sent: the result's text, never the view's HTML.
  const sent = JSON.stringify(harness.llm.requests.map((request) => request.body));
  expect(sent).toContain('週間天気予報');
  expect(sent).not.toContain('<html');
  expect(sent).not.toContain('ui://weather/forecast.html');
}, 60_000);
