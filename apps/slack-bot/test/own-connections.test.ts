import { startTokenServer, type TokenServer, tokenOf } from '@ai-assistant/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answered, type Harness, startHarness, waitFor } from './harness.js';

// A person's own connection (a per-person server) that fails when it opens: App Home and
// `/assistant servers` show it failed, with why. The fake Slack, a real loopback server, the store.
describe('a person’s own connection that fails when it opens, in Slack', () => {
  let harness: Harness;
  let tickets: TokenServer;
  const revoked = tokenOf('alice');

  beforeAll(async () => {
    tickets = await startTokenServer({ requireToken: true });
    harness = await startHarness({
      servers: {
        tickets: {
          url: tickets.url,
          headers: { Authorization: 'Bearer ${token}' },
          connection: 'per_user',
        },
      },
    });
    harness.slack.setPerson('U_ALICE', { team: 'T0001' });
    tickets.revoke(revoked);
    await harness.people.connect({ workspace: 'T0001', user: 'U_ALICE' }, 'tickets', revoked);
    // A question opens her connection; the server refuses her token at initialize.
    const { ts } = await harness.slack.mention('C0OWN', 'こんにちは', { user: 'U_ALICE' });
    await answered(harness, 'C0OWN', ts);
  }, 60_000);
  afterAll(async () => {
    await harness?.close();
    tickets?.close();
  });

  it('#43.25 App Home shows her connection to tickets failed, with the reason', async () => {
    const before = harness.slack.callsOf('views.publish').length;
    await harness.slack.push({
      type: 'app_home_opened',
      user: 'U_ALICE',
      channel: 'D0HOME',
      tab: 'home',
      event_ts: '1700000000.000100',
    });
    const call = await waitFor(() =>
      harness.slack
        .callsOf('views.publish')
        .slice(before)
        .find((entry) => entry.args.user_id === 'U_ALICE'),
    );
    const home = JSON.stringify(call.args.view);
    expect(home).toContain('*tickets* (http)');
    expect(home).toMatch(/failed: HTTP 401/);
    expect(home).not.toContain(revoked);
  });

  it('#43.25 /assistant servers shows it failed, with the reason', async () => {
    const responses = harness.slack.responses.length;
    await harness.slack.command('servers', { user: 'U_ALICE' });
    const text = String((await waitFor(() => harness.slack.responses[responses])).text);
    expect(text).toMatch(/`tickets` \(http\) — failed: HTTP 401/);
    expect(text).not.toContain(revoked);
  });
});
