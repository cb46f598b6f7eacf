import { afterEach, describe, expect, it } from 'vitest';
import { homeActions } from '../src/slack/app-home.js';
import { type Harness, startHarness, waitFor } from './harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** The last home view published for a person, as text. */
const published = (running: Harness, user: string, after = 0) =>
  running.slack
    .callsOf('views.publish')
    .slice(after)
    .filter((call) => call.args.user_id === user)
    .map((call) => JSON.stringify(call.args.view))
    .at(-1);

const openHome = (running: Harness, user: string) =>
  running.slack.push({
    type: 'app_home_opened',
    user,
    channel: 'D0HOME',
    tab: 'home',
    event_ts: '1700000000.000100',
  });

describe('App Home', () => {
  it('a member sees the servers, their state and their own usage; an admin also their controls and the audit', async () => {
    harness = await startHarness({ store: true });
    const running = harness;
    running.slack.setPerson('U_ADMIN', { team: 'T0001', admin: true });
    await running.store?.usage.add('T0001', 'UHUMAN01', new Date().toISOString().slice(0, 10), {
      questions: 3,
      inputTokens: 1000,
      outputTokens: 234,
      toolCalls: 2,
    });
    await openHome(running, 'UHUMAN01');
    const member = await waitFor(() => published(running, 'UHUMAN01'));
    expect(member).toContain('*weather* (stdio)');
    expect(member).toContain('3 questions, 1,234 model tokens, 2 tool calls');
    expect(member).not.toContain(homeActions.disable);
    expect(member).not.toContain('Latest audit entries');

    await openHome(running, 'U_ADMIN');
    const admin = await waitFor(() => published(running, 'U_ADMIN'));
    expect(admin).toContain(homeActions.disable);
    expect(admin).toContain('Latest audit entries');
  }, 30_000);

  it('a member’s forged Disable is refused (checked with users.info on the press); an admin’s works and is audited', async () => {
    harness = await startHarness({ store: true });
    const running = harness;
    running.slack.setPerson('U_ADMIN', { team: 'T0001', admin: true });
    const enabled = async () =>
      (await running.people.servers({ workspace: 'T0001', user: 'UHUMAN01' })).find(
        (server) => server.name === 'weather',
      )?.enabled;
    const before = running.slack.callsOf('views.publish').length;
    await running.slack.pressInView({ actionId: homeActions.disable, value: 'weather', user: 'UHUMAN01' });
    await waitFor(() => published(running, 'UHUMAN01', before));
    expect(await enabled()).toBe(true);
    expect(running.logger.lines.some((line) => /not an admin was refused/.test(line.message))).toBe(true);

    await running.slack.pressInView({ actionId: homeActions.disable, value: 'weather', user: 'U_ADMIN' });
    await waitFor(() => published(running, 'U_ADMIN'));
    expect(await enabled()).toBe(false);
    const audit = await running.store?.audit.recent('T0001');
    expect(audit?.[0]).toMatchObject({ kind: 'admin', person: 'U_ADMIN', detail: 'disabled weather' });
  }, 30_000);
});
