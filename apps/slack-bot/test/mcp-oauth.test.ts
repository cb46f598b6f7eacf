import {
  type AuthorizationServer,
  completion,
  type FakeRequest,
  followAuthorization,
  type ProtectedServer,
  startAuthorizationServer,
  startProtectedServer,
} from '@ai-assistant/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthLinkAction } from '../src/slack/oauth-connect.js';
import { answered, type Harness, startHarness, waitFor } from './harness.js';

/** The model asks who the server says it is, then repeats the tool's answer. */
/** The model's final answer in a thread (placeholders naming the running tool are not answers). */
const result = (harness: Harness, channel: string, ts: string) =>
  waitFor(() =>
    harness.slack
      .thread(channel, ts)
      .find((message) => !message.streaming && message.text.startsWith('結果:')),
  );

function whoamiModel(request: FakeRequest) {
  const messages = request.body.messages as Array<{ role: string; content: string | null }>;
  const result = messages.find((message) => message.role === 'tool');
  if (result) return completion(request, { text: `結果: ${result.content}` });
  return completion(request, { toolCall: { name: 'mcp__tracker__whoami', arguments: {} } });
}

describe('remote MCP servers with OAuth, per person, from Slack (oidc-provider as the authorization server)', () => {
  let as: AuthorizationServer;
  let server: ProtectedServer;
  let harness: Harness;
  let now = Date.parse('2026-11-23T09:00:00Z');

  beforeAll(async () => {
    as = await startAuthorizationServer({ accessTokenTtlSeconds: 600 });
    server = await startProtectedServer(as.issuer);
    as.resources.push(server.url);
    harness = await startHarness({
      publicUrl: true,
      now: () => new Date(now),
      servers: { tracker: { type: 'http', url: server.url, oauth: true } },
    });
    harness.llm.respondWith(whoamiModel);
    harness.slack.setPerson('UALICE01', { team: 'T0001' });
    harness.slack.setPerson('UBOB0001', { team: 'T0001' });
    harness.slack.setPerson('UCAROL01', { team: 'T0001' });
    harness.slack.setPerson('UDAVE001', { team: 'T0001' });
  }, 60_000);

  afterAll(async () => {
    await harness?.close();
    await server?.close();
    await as?.close();
  });

  /** The Connect link offered privately to `user` after a question (the button's URL and value). */
  async function connectLink(user: string) {
    const before = harness.slack.callsOf('chat.postEphemeral').length;
    const { ts } = await harness.slack.mention('C700', '私は誰？', { user });
    await answered(harness, 'C700', ts);
    const offer = await waitFor(() =>
      harness.slack
        .callsOf('chat.postEphemeral')
        .slice(before)
        .find(
          (call) =>
            call.args.user === user && JSON.stringify(call.args.blocks ?? '').includes(oauthLinkAction),
        ),
    );
    const button = (
      offer.args.blocks as Array<{ elements?: Array<{ action_id: string; url: string; value: string }> }>
    )
      .flatMap((block) => block.elements ?? [])
      .find((element) => element.action_id === oauthLinkAction);
    if (!button) throw new Error('no Connect link');
    return { button, ts };
  }

  const origin = () => `http://127.0.0.1:${harness.port}`;

  /** The browser confirms on the bot's start page: where it is sent next and the cookie it got. */
  async function confirm(link: string, from = origin()) {
    const token = new URL(link).searchParams.get('t') ?? '';
    const response = await fetch(`${origin()}/oauth/start`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: from },
      body: new URLSearchParams({ t: token }),
    });
    const [cookie] = (response.headers.getSetCookie()[0] ?? '').split(';');
    return {
      status: response.status,
      location: response.headers.get('location') ?? '',
      cookie: cookie ?? '',
    };
  }

  /** The private Connect link the person got, its state and the page the callback shows. */
  async function connectThroughTheButton(user: string, account: string) {
    const { button, ts } = await connectLink(user);
    // Pressing a link button opens the page and tells the app (its response_url names the message).
    await harness.slack.press({
      channel: 'C700',
      messageTs: ts,
      actionId: oauthLinkAction,
      value: button.value,
      user,
    });
    const started = await confirm(button.url);
    const back = await followAuthorization(started.location, { account });
    expect(back.startsWith(`http://127.0.0.1:${harness.port}/oauth/callback?`)).toBe(true);
    const page = await fetch(back, { headers: { cookie: started.cookie } });
    return { page: { status: page.status, text: await page.text() }, ts };
  }

  it('two people connect through the Connect button; each reaches the server as themselves; the message turns to ✓', async () => {
    const alice = await connectThroughTheButton('UALICE01', 'alice');
    expect(alice.page).toMatchObject({ status: 200 });
    expect(alice.page.text).toContain('Connected — you can close this tab');
    await waitFor(() =>
      harness.slack.responses.find((response) => String(response.text).startsWith('✓ Connected `tracker`')),
    );
    const bob = await connectThroughTheButton('UBOB0001', 'bob');
    expect(bob.page.status).toBe(200);

    for (const [user, account] of [
      ['UALICE01', 'alice'],
      ['UBOB0001', 'bob'],
    ] as const) {
      const { ts } = await harness.slack.mention('C701', '私は誰？', { user });
      expect((await result(harness, 'C701', ts)).text).toContain(`you are ${account}`);
    }
    expect(server.seen.map((entry) => entry.sub)).toEqual(['alice', 'bob']);
  }, 60_000);

  it('a redirect replayed is refused; nothing changes', async () => {
    const { button } = await connectLink('UDAVE001');
    const started = await confirm(button.url);
    const back = await followAuthorization(started.location, { account: 'dave' });
    expect((await fetch(back, { headers: { cookie: started.cookie } })).status).toBe(200);
    const replay = await fetch(back, { headers: { cookie: started.cookie } });
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('not confirmed in this browser, or already used');
  }, 30_000);

  it('#43.7 the Connect link is a page of the bot naming the Slack account and workspace; only its POST starts the sign-in, once', async () => {
    const { button } = await connectLink('UCAROL01');
    // The link leads to the bot, not to the authorization server.
    expect(new URL(button.url).origin).toBe(origin());
    const shown = await fetch(button.url, { redirect: 'manual' });
    expect(shown.status).toBe(200);
    expect(shown.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const text = await shown.text();
    expect(text).toContain(
      'the Slack account <strong>UCAROL01</strong> in the workspace <strong>T0001</strong>',
    );
    expect(text).toContain('<form method="post" action="/oauth/start">');
    expect(text).toContain('Connect tracker as UCAROL01');

    // Another site cannot confirm for the person's browser.
    expect((await confirm(button.url, 'https://evil.example')).status).toBe(403);
    const started = await confirm(button.url);
    expect(started.status).toBe(303);
    expect(started.location.startsWith(`${as.issuer}/`)).toBe(true);
    expect(started.cookie).toMatch(/^oauth_flow_[\w-]{16}=[\w-]{43}$/);
    // Used once: the forwarded copy of the link no longer starts anything.
    expect((await confirm(button.url)).status).toBe(410);
    expect((await fetch(button.url)).status).toBe(410);

    // The redirect back completes only in the browser that confirmed (its cookie).
    const back = await followAuthorization(started.location, { account: 'carol' });
    const elsewhere = await fetch(back);
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.text()).toContain(
      'open the Connect link from Slack in the browser you sign in with',
    );
    expect(
      harness.people &&
        (await harness.people.servers({ workspace: 'T0001', user: 'UCAROL01' })).find(
          (entry) => entry.name === 'tracker',
        )?.connected,
    ).toBe(false);
    const here = await fetch(back, { headers: { cookie: started.cookie } });
    expect(here.status).toBe(200);
    const { ts } = await harness.slack.mention('C703', '私は誰？', { user: 'UCAROL01' });
    expect((await result(harness, 'C703', ts)).text).toContain('you are carol');
  }, 60_000);

  it('the token expires: four questions at once make exactly one refresh', async () => {
    const before = as.counts.token.refresh_token ?? 0;
    now += 600_000;
    const asked = await Promise.all(
      ['C710', 'C711', 'C712', 'C713'].map((channel) =>
        harness.slack.mention(channel, '私は誰？', { user: 'UALICE01' }).then(({ ts }) => ({ channel, ts })),
      ),
    );
    for (const { channel, ts } of asked)
      expect((await result(harness, channel, ts)).text).toContain('you are alice');
    expect((as.counts.token.refresh_token ?? 0) - before).toBe(1);
  }, 60_000);

  it('/assistant servers says who is connected with OAuth; /assistant disconnect revokes the tokens', async () => {
    const said = harness.slack.responses.length;
    await harness.slack.command('servers', { user: 'UBOB0001' });
    const listed = await waitFor(() =>
      harness.slack.responses.slice(said).find((response) => String(response.text).includes('`tracker`')),
    );
    expect(String(listed.text)).toContain('you: connected with OAuth ✓ since');
    const revocations = as.counts.revocations;
    await harness.slack.command('disconnect tracker', { user: 'UBOB0001' });
    await waitFor(() =>
      harness.slack.responses.find((response) => String(response.text).includes('your tokens are revoked')),
    );
    expect(as.counts.revocations - revocations).toBe(1);
    const { ts } = await harness.slack.mention('C702', '私は誰？', { user: 'UBOB0001' });
    await result(harness, 'C702', ts);
    expect(server.seen.filter((entry) => entry.sub === 'bob')).toHaveLength(1);
  }, 60_000);
});
