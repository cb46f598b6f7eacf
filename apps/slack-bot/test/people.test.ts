import {
  completion,
  type FakeRequest,
  startTokenServer,
  type TokenServer,
  tokenOf,
  weatherModel,
} from '@ai-assistant/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answers, type Harness, mentionBot, startHarness, waitFor } from './harness.js';

/** Asked about チケット, the model calls the tickets tool; told to force the weather, it names that tool. */
function peopleModel(request: FakeRequest) {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: string | null }>;
  const last = messages.at(-1);
  if (last?.role === 'tool') return completion(request, { text: `結果: ${last.content}` });
  const question = last?.content ?? '';
  if (question.includes('チケット'))
    return completion(request, { toolCall: { name: 'mcp__tickets__whoami', arguments: {} } });
  if (question.includes('無理に'))
    return completion(request, {
      toolCall: { name: 'mcp__weather__get_weather', arguments: { location: '東京' } },
    });
  return weatherModel(request);
}

const offeredTools = (request: FakeRequest | undefined) =>
  ((request?.body.tools ?? []) as Array<{ function: { name: string } }>).map((tool) => tool.function.name);

describe('people and their credentials, in Slack', () => {
  let harness: Harness;
  let tickets: TokenServer;
  const secrets = { alice: tokenOf('alice'), bob: tokenOf('bob') };

  beforeAll(async () => {
    tickets = await startTokenServer();
    harness = await startHarness({
      servers: {
        tickets: {
          url: tickets.url,
          headers_template: { Authorization: 'Bearer ${token}' },
          credential_help: 'Create a token at https://tickets.example/settings/tokens',
          system_instruction: 'The team’s ticket tracker.',
        },
      },
    });
    harness.llm.respondWith(peopleModel);
    harness.slack.setPerson('U_ALICE', { team: 'T0001' });
    harness.slack.setPerson('U_BOB', { team: 'T0001' });
    harness.slack.setPerson('U_CAROL', { team: 'T0002' });
    harness.slack.setPerson('U_ADMIN_B', { team: 'T0002', admin: true });
  }, 60_000);
  afterAll(async () => {
    await harness?.close();
    tickets?.close();
  });

  /** The thread's final answer (the model's "結果: …" or a plain answer), once written. */
  const finalAnswer = (channel: string, ts: string) =>
    waitFor(() => answers(harness, channel, ts).find((message) => !message.text.includes('実行しています')));

  const command = async (text: string, user: string) => {
    const before = harness.slack.responses.length;
    await harness.slack.command(text, { user });
    return String((await waitFor(() => harness.slack.responses[before])).text);
  };

  /** Opens the modal with /assistant connect and submits `secret` through Socket Mode. */
  const connect = async (user: string, secret: string) => {
    const opened = harness.slack.callsOf('views.open').length;
    await harness.slack.command('connect tickets', { user });
    const call = await waitFor(() => harness.slack.callsOf('views.open')[opened]);
    const view = call.args.view as { callback_id: string; private_metadata: string };
    const envelope = await harness.slack.submitView({
      callbackId: view.callback_id,
      privateMetadata: view.private_metadata,
      values: { secret },
      user,
    });
    return { view: call.args.view, ack: await waitFor(() => harness.slack.ackPayloads.get(envelope)) };
  };

  it('/assistant connect opens a modal with the server’s description and credential_help; submitting stores it: "✓ connected"', async () => {
    const { view, ack } = await connect('U_ALICE', secrets.alice);
    const shown = JSON.stringify(view);
    expect(shown).toContain('The team’s ticket tracker.');
    expect(shown).toContain('https://tickets.example/settings/tokens');
    expect(JSON.stringify(ack)).toContain('✓ connected');
    expect(ack).toMatchObject({ response_action: 'update' });
    const stored = await harness.store?.credentials.list('T0001', 'U_ALICE');
    expect(stored?.map((entry) => entry.server)).toEqual(['tickets']);
  });

  it('a token with a line break, or too short to be one, is refused in the modal and never stored (hardening 27.4, 27.14)', async () => {
    for (const [secret, why] of [
      ['tok-alpha-123\r\nX-Injected: 1', /control character/],
      ['https:', /too short to be a token/],
    ] as const) {
      const { ack } = await connect('U_MALLORY', secret);
      expect(ack).toMatchObject({ response_action: 'errors' });
      expect(JSON.stringify(ack)).toMatch(why);
      expect(JSON.stringify(ack)).not.toContain('X-Injected');
    }
    expect(await harness.store?.credentials.list('T0001', 'U_MALLORY')).toEqual([]);
  });

  it('a token the server refuses (expired, revoked): the model is told so, and the person gets a Reconnect button', async () => {
    harness.slack.setPerson('U_DAVE', { team: 'T0001' });
    const daveToken = tokenOf('dave');
    expect((await connect('U_DAVE', daveToken)).ack).toMatchObject({ response_action: 'update' });
    tickets.revoke(daveToken);
    const { ts } = await harness.slack.mention('C0REVOKED', 'チケットを見せて', { user: 'U_DAVE' });
    const offer = await waitFor(() =>
      harness.slack.callsOf('chat.postEphemeral').find((call) => call.args.user === 'U_DAVE'),
    );
    // Before: the model read "HTTP 401 …" and the person got nothing to press.
    expect(String(offer.args.text)).toContain('`tickets` refused your token');
    expect(JSON.stringify(offer.args.blocks)).toContain('Reconnect tickets');
    expect(JSON.stringify(offer.args.blocks)).toContain('"action_id":"credential_connect"');
    await finalAnswer('C0REVOKED', ts);
    const toolResult = harness.llm.requests
      .flatMap((request) => request.body.messages as Array<{ role: string; content: string }>)
      .find((message) => message.role === 'tool' && message.content.includes('refused'));
    expect(toolResult?.content).toContain(
      'the "tickets" server refused the user\'s own credential (HTTP 401)',
    );
    expect(toolResult?.content).toContain('/assistant connect tickets');
    expect(JSON.stringify(harness.slack.calls)).not.toContain(daveToken);
  });

  it('a person without a credential: the turn goes on, and they alone get a Connect button that opens the same modal', async () => {
    const { ts } = await mentionBot(harness, 'C0PEOPLE', 'チケットを見せて', undefined);
    void ts;
    const offer = await waitFor(() =>
      harness.slack.callsOf('chat.postEphemeral').find((call) => call.args.user === 'UHUMAN01'),
    );
    expect(JSON.stringify(offer.args.blocks)).toContain('"action_id":"credential_connect"');
    expect(String(offer.args.text)).toContain('`tickets` needs your own token');
    const answer = await finalAnswer('C0PEOPLE', ts);
    // The model read that the person must connect, with the command to do it.
    const toolResult = harness.llm.requests
      .flatMap((request) => request.body.messages as Array<{ role: string; content: string }>)
      .find((message) => message.role === 'tool' && message.content.includes('needs the user'));
    expect(toolResult?.content).toContain('needs the user\'s own credential for the "tickets" server');
    expect(toolResult?.content).toContain('/assistant connect tickets');
    expect(answer?.text).toContain('結果:');
    expect(tickets.calls.filter((call) => call.owner === undefined)).toHaveLength(0);

    const opened = harness.slack.callsOf('views.open').length;
    await harness.slack.press({
      channel: 'C0PEOPLE',
      messageTs: ts,
      actionId: 'credential_connect',
      value: 'tickets',
    });
    const modal = await waitFor(() => harness.slack.callsOf('views.open')[opened]);
    expect(modal.args.view).toMatchObject({ callback_id: 'credential_modal' });
  });

  it('two people asking at once each reach the server with their own token (asserted server-side)', async () => {
    await connect('U_BOB', secrets.bob);
    tickets.calls.length = 0;
    const [a, b] = await Promise.all([
      harness.slack.mention('C0PEOPLE', 'チケットを見せて', { user: 'U_ALICE' }),
      harness.slack.mention('C0PEOPLE', 'チケットを見せて', { user: 'U_BOB' }),
    ]);
    const forAlice = await finalAnswer('C0PEOPLE', a.ts);
    const forBob = await finalAnswer('C0PEOPLE', b.ts);
    expect(forAlice?.text).toContain('you are alice');
    expect(forBob?.text).toContain('you are bob');
    expect(tickets.calls.map((call) => call.owner).sort()).toEqual(['alice', 'bob']);
  });

  it('/assistant servers says whether you are connected; a credential of workspace T0001 is never used in T0002', async () => {
    expect(await command('servers', 'U_ALICE')).toContain(
      '`tickets` (http) — connected, 1 tool (MCP 2025-11-25); approval: asks before any tool that is not read-only; you: connected ✓',
    );
    expect(await command('servers', 'U_CAROL')).toContain(
      'you: not connected (`/assistant connect tickets`)',
    );
    tickets.calls.length = 0;
    const { ts } = await harness.slack.mention('C0OTHER', 'チケットを見せて', { user: 'U_CAROL' });
    await finalAnswer('C0OTHER', ts);
    expect(tickets.calls).toHaveLength(0);
  });

  it('/assistant disconnect deletes the credential', async () => {
    expect(await command('disconnect tickets', 'U_BOB')).toContain('Disconnected `tickets`');
    expect(await harness.store?.credentials.list('T0001', 'U_BOB')).toEqual([]);
    expect(await command('disconnect tickets', 'U_BOB')).toContain('You had not connected `tickets`');
  });

  it('servers enable/disable: admins only; a disabled tool is neither offered nor callable in that workspace, even when the model names it', async () => {
    expect(await command('servers disable weather', 'U_CAROL')).toContain('only workspace admins and owners');
    expect(await command('servers disable weather', 'U_ADMIN_B')).toContain(
      '`weather` is now disabled for this workspace',
    );

    const { ts } = await harness.slack.mention('C0OTHER', '無理に天気を', { user: 'U_CAROL' });
    const answer = await finalAnswer('C0OTHER', ts);
    const asked = harness.llm.requests.filter((request) =>
      JSON.stringify(request.body.messages).includes('無理に天気を'),
    );
    expect(offeredTools(asked[0])).not.toContain('mcp__weather__get_weather');
    expect(answer?.text).toContain('there is no tool named');

    // The other workspace still has it.
    const inA = await harness.slack.mention('C0PEOPLE', '東京の天気は？', { user: 'U_ALICE' });
    await finalAnswer('C0PEOPLE', inA.ts);
    const lastTools = offeredTools(
      harness.llm.requests.find((request) =>
        JSON.stringify(request.body.messages).includes('東京の天気は？'),
      ),
    );
    expect(lastTools).toContain('mcp__weather__get_weather');
    expect(await command('servers', 'U_CAROL')).not.toContain('`weather`');
    expect(await command('servers enable weather', 'U_ADMIN_B')).toContain('now enabled');
  });

  it('a secret given through the modal is found nowhere: logs, posted messages, API calls, LLM requests, command replies', async () => {
    const everything = JSON.stringify({
      logs: harness.logger.lines,
      calls: harness.slack.calls,
      responses: harness.slack.responses,
      acks: [...harness.slack.ackPayloads.values()],
      llm: harness.llm.requests.map((request) => request.body),
    });
    for (const secret of Object.values(secrets)) expect(everything).not.toContain(secret);
    // It is kept where it belongs: in the store, for its owner.
    expect((await harness.store?.credentials.of('T0001', 'U_ALICE'))?.secrets).toEqual({
      tickets: secrets.alice,
    });
  });
});
