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
      store: true,
      publicUrl: true,
      now: () => new Date(now),
      servers: { tracker: { type: 'http', url: server.url, oauth: true } },
    });
    harness.llm.respondWith(whoamiModel);
    harness.slack.setPerson('UALICE01', { team: 'T0001' });
    harness.slack.setPerson('UBOB0001', { team: 'T0001' });
  }, 60_000);

  afterAll(async () => {
    await harness?.close();
    await server?.close();
    await as?.close();
  });

  /** The private Connect link the person got, its state and the page the callback shows. */
  async function connectThroughTheButton(user: string, account: string) {
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
    // Pressing a link button opens the page and tells the app (its response_url names the message).
    await harness.slack.press({
      channel: 'C700',
      messageTs: ts,
      actionId: oauthLinkAction,
      value: button.value,
      user,
    });
    const back = await followAuthorization(button.url, { account });
    expect(back.startsWith(`http://127.0.0.1:${harness.port}/oauth/callback?`)).toBe(true);
    const page = await fetch(back);
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

  it('a redirect replayed is refused with the step named; nothing changes', async () => {
    const { url } = await harness.people.beginConnect({ workspace: 'T0001', user: 'UALICE01' }, 'tracker');
    const back = await followAuthorization(url, { account: 'alice' });
    expect((await fetch(back)).status).toBe(200);
    const replay = await fetch(back);
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('failed at the redirect: unknown or already used state');
  }, 30_000);

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
