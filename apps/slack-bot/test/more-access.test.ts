import {
  completion,
  type FakeRequest,
  startTokenServer,
  type TokenServer,
  tokenOf,
} from '@ai-assistant/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answered, type Harness, startHarness, waitFor } from './harness.js';

/** Asked about チケット, the model calls the tickets tool, then answers with what it read. */
function ticketsModel(request: FakeRequest) {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: string | null }>;
  const last = messages.at(-1);
  if (last?.role === 'tool') return completion(request, { text: `結果: ${last.content}` });
  return completion(request, { toolCall: { name: 'mcp__tickets__whoami', arguments: {} } });
}

// A server that needs more access than the person's token has (403 insufficient_scope): the model and
// the person are told so, not that the token expired. The fake Slack, a real loopback server, the store.
describe('a server that asks for more access, in Slack', () => {
  let harness: Harness;
  let tickets: TokenServer;
  const token = tokenOf('alice');

  beforeAll(async () => {
    tickets = await startTokenServer();
    harness = await startHarness({
      servers: { tickets: { url: tickets.url, headers_template: { Authorization: 'Bearer ${token}' } } },
    });
    harness.llm.respondWith(ticketsModel);
    harness.slack.setPerson('U_ALICE', { team: 'T0001' });
    await harness.people.connect({ workspace: 'T0001', user: 'U_ALICE' }, 'tickets', token);
    tickets.askMore(token, 'tickets:write');
  }, 60_000);
  afterAll(async () => {
    await harness?.close();
    tickets?.close();
  });

  it('#43.15 the model reads that more permission is needed, and the person is offered Reconnect naming the scope', async () => {
    const { ts } = await harness.slack.mention('C0MORE', 'チケットを見せて', { user: 'U_ALICE' });
    const offer = await waitFor(() =>
      harness.slack.callsOf('chat.postEphemeral').find((call) => call.args.user === 'U_ALICE'),
    );
    expect(String(offer.args.text)).toContain('`tickets` needs more permission than your token has');
    expect(String(offer.args.text)).toContain('tickets:write');
    expect(String(offer.args.text)).not.toMatch(/expired|revoked/);
    expect(JSON.stringify(offer.args.blocks)).toContain('Reconnect tickets');
    await answered(harness, 'C0MORE', ts);
    const told = harness.llm.requests
      .flatMap((request) => request.body.messages as Array<{ role: string; content: string }>)
      .find((message) => message.role === 'tool');
    expect(told?.content).toContain('needs more permission than the user granted it');
    expect(told?.content).toContain('"tickets:write"');
    expect(told?.content).not.toMatch(/expired|HTTP 401/);
    expect(JSON.stringify(harness.slack.calls)).not.toContain(token);
  });
});
