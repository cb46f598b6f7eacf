import { createHmac } from 'node:crypto';
import { botUserId } from '@ai-assistant/test-kit';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, waitFor } from './harness.js';

const secret = 'test-signing-secret-0123';

function signed(body: string, signingSecret = secret, timestamp = Math.floor(Date.now() / 1000)) {
  const signature = `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  return {
    'content-type': 'application/json',
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': signature,
  };
}

describe('Slack app over HTTP (Events API)', () => {
  let harness: Harness;
  let base: string;
  beforeAll(async () => {
    harness = await startHarness({ env: { SLACK_APP_TOKEN: '', SLACK_SIGNING_SECRET: secret } });
    base = `http://127.0.0.1:${harness.port}`;
  }, 30_000);
  afterAll(() => harness?.close());

  const post = (body: string, headers: Record<string, string>) =>
    request(`${base}/slack/events`, { method: 'POST', body, headers });

  it('answers url_verification with the challenge', async () => {
    const body = JSON.stringify({ type: 'url_verification', challenge: 'challenge-123', token: 'x' });
    const response = await post(body, signed(body));
    expect(response.statusCode).toBe(200);
    expect(await response.body.text()).toContain('challenge-123');
  });

  it('refuses a bad signature or a stale timestamp with 401', async () => {
    const body = JSON.stringify({ type: 'url_verification', challenge: 'c' });
    const wrong = await post(body, signed(body, 'not-the-secret'));
    expect(wrong.statusCode).toBe(401);
    await wrong.body.dump();
    const stale = await post(body, signed(body, secret, Math.floor(Date.now() / 1000) - 3600));
    expect(stale.statusCode).toBe(401);
    await stale.body.dump();
  });

  it('a signed app_mention is acknowledged and answered in its thread', async () => {
    const ts = harness.slack.say('C100', `<@${botUserId}> 東京の天気を教えて`);
    const body = JSON.stringify({
      type: 'event_callback',
      team_id: 'T0001',
      api_app_id: 'A0001',
      event_id: 'EvHTTP1',
      event_time: 1,
      event: {
        type: 'app_mention',
        channel: 'C100',
        user: 'UHUMAN01',
        text: `<@${botUserId}> 東京の天気を教えて`,
        ts,
        event_ts: ts,
      },
    });
    const response = await post(body, signed(body));
    expect(response.statusCode).toBe(200);
    await response.body.dump();
    const retry = await post(body, {
      ...signed(body),
      'x-slack-retry-num': '1',
      'x-slack-retry-reason': 'http_timeout',
    });
    expect(retry.statusCode).toBe(200);
    await retry.body.dump();
    await waitFor(() =>
      harness.slack
        .thread('C100', ts)
        .some(
          (message) =>
            message.user === botUserId && !message.streaming && message.text.includes('晴れ時々くもり'),
        ),
    );
    expect(
      harness.slack.callsOf('chat.postMessage').filter((call) => call.args.thread_ts === ts),
    ).toHaveLength(1);
  });

  it('/healthz reports the store, the MCP servers with their status, and (#48) the Slack connection as ready', async () => {
    const response = await request(`${base}/healthz`);
    expect(response.statusCode).toBe(200);
    expect(await response.body.json()).toEqual({
      status: 'ok',
      slack: { state: 'ready' },
      store: { engine: 'pglite', reachable: true },
      mcp: {
        enabled: true,
        servers: [
          {
            name: 'weather',
            transport: 'stdio',
            state: 'connected',
            toolCount: 1,
            protocolVersion: '2026-07-28',
          },
        ],
      },
    });
  });
});
