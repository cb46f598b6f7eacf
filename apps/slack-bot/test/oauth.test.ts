import { storeDatabase, rowsMentioning as storeRowsMentioning } from '@ai-assistant/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, waitFor } from './harness.js';

const signingSecret = 'oauth-signing-secret-0123';
const oauthEnv = {
  SLACK_CLIENT_ID: '1111.2222',
  SLACK_CLIENT_SECRET: 'oauth-client-secret-0123456789',
  SLACK_STATE_SECRET: 'oauth-state-secret-0123456789',
};
const workspaces = {
  T0ALPHA: {
    team: 'T0ALPHA',
    botToken: 'xoxb-T0ALPHA-only-token-0123456789',
    botUserId: 'U_BOT_TA',
    user: 'U_ALICE',
  },
  T0BRAVO: {
    team: 'T0BRAVO',
    botToken: 'xoxb-T0BRAVO-only-token-0123456789',
    botUserId: 'U_BOT_TB',
    user: 'U_BOB',
  },
};
const org = {
  team: 'TG1',
  enterprise: 'E_ORG',
  botToken: 'xoxb-E_ORG-org-token-0123',
  botUserId: 'U_BOT_ORG',
  user: 'U_CAROL',
};

/** Runs the install as a browser would: /slack/install, Slack's consent (the code), the redirect with the state cookie. */
async function install(base: string, code: string, options: { dropCookie?: boolean } = {}) {
  const start = await fetch(`${base}/slack/install`, { redirect: 'manual' });
  const location = new URL(start.headers.get('location') ?? '');
  const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const state = location.searchParams.get('state') ?? '';
  const callback = await fetch(
    `${base}/slack/oauth_redirect?code=${code}&state=${encodeURIComponent(state)}`,
    {
      headers: options.dropCookie ? {} : { cookie },
    },
  );
  return { start, location, callback, page: await callback.text() };
}

/** The thread's messages posted by one workspace's bot. */
/** Every row of the harness's store that mentions `text`. */
const rowsMentioning = (harness: Harness, text: string) => {
  if (!harness.store) throw new Error('no store');
  return storeRowsMentioning(harness.store, text);
};

const botMessages = (harness: Harness, channel: string, ts: string, botUserId: string) =>
  harness.slack.thread(channel, ts).filter((message) => message.user === botUserId);

describe('installed in several workspaces with Slack OAuth (HTTP mode)', () => {
  let harness: Harness;
  let base: string;
  beforeAll(async () => {
    harness = await startHarness({
      env: { SLACK_APP_TOKEN: '', SLACK_BOT_TOKEN: '', SLACK_SIGNING_SECRET: signingSecret, ...oauthEnv },
    });
    base = `http://127.0.0.1:${harness.port}`;
    harness.slack.setOAuthApp(oauthEnv.SLACK_CLIENT_ID, oauthEnv.SLACK_CLIENT_SECRET);
    harness.slack.deliverOverHttp(`${base}/slack/events`, signingSecret);
  }, 30_000);
  afterAll(() => harness?.close());

  it('installs in two workspaces; each one’s events are answered with its own bot token', async () => {
    const { slack } = harness;
    for (const workspace of Object.values(workspaces)) {
      const code = slack.addWorkspace(workspace);
      slack.setPerson(workspace.user, { team: workspace.team });
      const { start, location, callback } = await install(base, code);
      expect(start.status).toBe(302);
      expect(location.searchParams.get('client_id')).toBe(oauthEnv.SLACK_CLIENT_ID);
      expect(location.searchParams.get('scope')?.split(',')).toContain('app_mentions:read');
      expect(callback.status).toBe(200);
    }
    expect(slack.callsOf('oauth.v2.access')).toHaveLength(2);
    for (const workspace of Object.values(workspaces)) {
      const channel = `C_${workspace.team}`;
      const { ts } = await slack.mention(channel, `hello from ${workspace.team}`, { user: workspace.user });
      await waitFor(() =>
        botMessages(harness, channel, ts, workspace.botUserId).some((m) =>
          m.text.includes(`hello from ${workspace.team}`),
        ),
      );
      const calls = slack.calls.filter((call) => call.args.channel === channel);
      expect(calls.length).toBeGreaterThan(0);
      expect(new Set(calls.map((call) => call.token))).toEqual(new Set([workspace.botToken]));
    }
    // Tokens are encrypted at rest and never logged.
    for (const workspace of Object.values(workspaces)) {
      expect(await rowsMentioning(harness, workspace.botToken)).toEqual([]);
      expect(JSON.stringify(harness.logger.lines)).not.toContain(workspace.botToken);
    }
    expect(JSON.stringify(harness.logger.lines)).not.toContain(oauthEnv.SLACK_CLIENT_SECRET);
  });

  it('a callback without the browser’s state cookie installs nothing', async () => {
    const code = harness.slack.addWorkspace({
      team: 'T_FORGED',
      botToken: 'xoxb-forged-0123456789',
      botUserId: 'U_BOT_F',
    });
    const { callback } = await install(base, code, { dropCookie: true });
    expect(callback.status).not.toBe(200);
    expect(await rowsMentioning(harness, 'T_FORGED')).toEqual([]);
  });

  it('an Enterprise Grid org-wide install is found by its enterprise for a workspace of the organisation', async () => {
    const { slack } = harness;
    const code = slack.addWorkspace({ ...org, orgWide: true });
    slack.setPerson(org.user, { team: org.team });
    expect((await install(base, code)).callback.status).toBe(200);
    if (!harness.store) throw new Error('no store');
    const row = await storeDatabase(harness.store)
      .selectFrom('sealed_records')
      .selectAll()
      .where('organisation_id', '=', org.enterprise)
      .executeTakeFirst();
    expect(row).toMatchObject({ kind: 'installation', id: `E:${org.enterprise}`, workspace_id: null });
    const { ts } = await slack.mention('C_ORG', 'hello from the org', { user: org.user });
    await waitFor(() =>
      botMessages(harness, 'C_ORG', ts, org.botUserId).some((m) => m.text.includes('hello from the org')),
    );
    expect(
      new Set(slack.calls.filter((call) => call.args.channel === 'C_ORG').map((call) => call.token)),
    ).toEqual(new Set([org.botToken]));
  });

  it('uninstalling an org-wide install forgets the people of its workspaces too (hardening 27.3)', async () => {
    const { slack, store } = harness;
    // The org was installed and used in the test above: the workspace was recorded with its enterprise.
    expect(await store?.workspaces.inOrganisation(org.enterprise)).toContain(org.team);
    await store?.credentials.put(org.team, org.user, 'github', 'ghp_carol_org_secret');
    await slack.push({ type: 'app_uninstalled', team: org.team }, { eventId: 'EvUNINSTALL_ORG' });
    const deadline = Date.now() + 10_000;
    while ((await rowsMentioning(harness, org.team)).length > 0 && Date.now() < deadline)
      await new Promise((done) => setTimeout(done, 50));
    // Before: the log said "workspaces":[] and the credential still decrypted.
    expect(await rowsMentioning(harness, org.team)).toEqual([]);
    expect(await rowsMentioning(harness, org.enterprise)).toEqual([]);
    expect((await store?.credentials.of(org.team, org.user))?.secrets).toEqual({});
  });

  it('app_uninstalled and tokens_revoked delete the workspace: installation, credentials, settings, claims', async () => {
    const { slack, store } = harness;
    await store?.credentials.put('T0ALPHA', workspaces.T0ALPHA.user, 'github', 'ghp_alice_secret');
    await store?.workspaces.setEnabled('T0ALPHA', 'weather', false, 'U_ADMIN');
    await store?.credentials.put('T0BRAVO', workspaces.T0BRAVO.user, 'github', 'ghp_bob_secret');
    expect((await rowsMentioning(harness, 'T0ALPHA')).length).toBeGreaterThan(0);

    await slack.push({ type: 'app_uninstalled', team: 'T0ALPHA' }, { eventId: 'EvUNINSTALL' });
    const deadline = Date.now() + 10_000;
    while ((await rowsMentioning(harness, 'T0ALPHA')).length > 0 && Date.now() < deadline)
      await new Promise((done) => setTimeout(done, 50));
    expect(await rowsMentioning(harness, 'T0ALPHA')).toEqual([]);
    expect((await rowsMentioning(harness, 'T0BRAVO')).length).toBeGreaterThan(0);

    // A revoked user token alone changes nothing; the bot's token revoked forgets the workspace.
    await slack.push(
      { type: 'tokens_revoked', team: 'T0BRAVO', tokens: { oauth: ['U_BOB'] } },
      { eventId: 'EvREVOKE1' },
    );
    expect((await rowsMentioning(harness, 'T0BRAVO')).length).toBeGreaterThan(0);
    await slack.push(
      { type: 'tokens_revoked', team: 'T0BRAVO', tokens: { bot: ['U_BOT_TB'] } },
      { eventId: 'EvREVOKE2' },
    );
    const until = Date.now() + 10_000;
    while ((await rowsMentioning(harness, 'T0BRAVO')).length > 0 && Date.now() < until)
      await new Promise((done) => setTimeout(done, 50));
    expect(await rowsMentioning(harness, 'T0BRAVO')).toEqual([]);

    // An event from the uninstalled workspace is answered by no one.
    const before = slack.calls.length;
    const { ts } = await slack.mention('C_TA_AFTER', 'still there?', { user: workspaces.T0ALPHA.user });
    await new Promise((done) => setTimeout(done, 500));
    expect(slack.calls.slice(before).filter((call) => call.args.channel === 'C_TA_AFTER')).toEqual([]);
    expect(botMessages(harness, 'C_TA_AFTER', ts, workspaces.T0ALPHA.botUserId)).toEqual([]);
  });
});

describe('OAuth in Socket Mode', () => {
  it('serves /slack/install on the bot’s own HTTP server', async () => {
    const harness = await startHarness({ env: { SLACK_BOT_TOKEN: '', ...oauthEnv } });
    try {
      const response = await fetch(`http://127.0.0.1:${harness.port}/slack/install`, { redirect: 'manual' });
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toContain('client_id=1111.2222');
    } finally {
      await harness.close();
    }
  });
});
