import { ScriptedProvider, toolMessage } from '@ai-assistant/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { type ChatEvent, ChatService } from '../src/chat/chat-service.js';
import type { ApprovalRequest } from '../src/chat/chat-types.js';
import type { ElicitationRequest } from '../src/tool-host.js';
import { everythingEntry, managerPool, nodeServer } from './helpers.js';

const elicitTool = 'mcp__everything__trigger-elicitation-request';
const sampleTool = 'mcp__everything__trigger-sampling-request';

/** A turn whose model calls one server-everything tool, then answers with what the tool returned. */
function callOnce(name: string, args: Record<string, unknown> = {}) {
  return new ScriptedProvider([
    { toolCalls: [{ id: 'call_1', name, arguments: args }] },
    (call) =>
      call.method === 'complete'
        ? { text: 'a completion for the server' }
        : { text: `tool said: ${toolMessage(call, 'call_1')?.content ?? 'nothing'}` },
  ]);
}

// server-everything (from npm) asks its client for input and for completions in the middle of a tool
// call; the host declares both, so it offers those tools, and a turn answers them.
describe('a server’s questions in the middle of a tool call', () => {
  const pool = managerPool();
  afterEach(() => pool.closeAll());
  const connect = (timeoutMs = 30_000) =>
    pool.connect([nodeServer('everything', everythingEntry, ['stdio'], { timeoutMs, approval: 'auto' })]);

  it('server-everything offers its roots, elicitation and sampling tools to this host', async () => {
    const manager = await connect();
    const names = manager.listTools().map((tool) => tool.name.replace('mcp__everything__', ''));
    // Before: 13 tools; these never registered because the client declared no capabilities.
    expect(names).toEqual(
      expect.arrayContaining([
        'get-roots-list',
        'trigger-elicitation-request',
        'trigger-url-elicitation',
        'trigger-sampling-request',
      ]),
    );
  });

  it('elicitation: the person’s form answer reaches the server; the call’s timeout pauses while they answer', async () => {
    const manager = await connect(1000);
    const asked: ElicitationRequest[] = [];
    const events: ChatEvent[] = [];
    const chat = new ChatService({ provider: callOnce(elicitTool), tools: manager });
    const result = await chat.respond({
      history: [],
      userMessage: 'ask me',
      onEvent: (event) => events.push(event),
      elicit: async (request) => {
        asked.push(request);
        // Longer than the server's 1 s timeout: answering time is the person's, not the server's.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        return { action: 'accept', content: { name: 'Taro Yamada', check: true, integer: 7 } };
      },
    });
    expect(asked[0]).toMatchObject({ server: 'everything', mode: 'form' });
    expect(asked[0]?.requestedSchema?.properties).toHaveProperty('email');
    expect(result.text).toContain('User provided the requested information');
    expect(result.text).toContain('Taro Yamada');
    expect(events).toContainEqual({ type: 'elicitation', server: 'everything', mode: 'form' });
  }, 20_000);

  it('#45 the -async tools (sampling and elicitation asked as tasks) are offered, and each is answered', async () => {
    const manager = await connect();
    const names = manager.listTools().map((tool) => tool.name.replace('mcp__everything__', ''));
    // Before: not offered; the host declared no tasks for sampling and elicitation.
    expect(names).toEqual(
      expect.arrayContaining(['trigger-elicitation-request-async', 'trigger-sampling-request-async']),
    );
    const elicited = await new ChatService({
      provider: callOnce('mcp__everything__trigger-elicitation-request-async'),
      tools: manager,
    }).respond({
      history: [],
      userMessage: 'ask me',
      elicit: async () => ({ action: 'accept', content: { name: 'Taro Yamada' } }),
    });
    expect(elicited.text).toContain('Taro Yamada');
    const sampled = await new ChatService({
      provider: callOnce('mcp__everything__trigger-sampling-request-async', { prompt: 'summarise' }),
      tools: manager,
    }).respond({ history: [], userMessage: 'sample please', approve: async () => ({ outcome: 'approved' }) });
    expect(sampled.text).toContain('a completion for the server');
  });

  it('#45 all 19 of server-everything’s tools are offered, and each one runs in a turn', async () => {
    const manager = await connect();
    const names = manager
      .listTools()
      .map((tool) => tool.name)
      .filter((name) => name.startsWith('mcp__everything__'));
    const args: Record<string, Record<string, unknown>> = {
      echo: { message: 'hi' },
      'get-annotated-message': { messageType: 'success' },
      'get-structured-content': { location: 'Chicago' },
      'get-sum': { a: 1, b: 2 },
      'gzip-file-as-resource': { data: 'data:text/plain;base64,aGVsbG8=' },
      'trigger-long-running-operation': { duration: 1, steps: 2 },
      'trigger-url-elicitation': { url: 'https://example.com/finish' },
      'trigger-sampling-request': { prompt: 'summarise' },
      'trigger-sampling-request-async': { prompt: 'summarise' },
      'simulate-research-query': { topic: 'MCP' },
    };
    const calls = names.map((name, index) => ({
      id: `call_${index}`,
      name,
      arguments: args[name.replace('mcp__everything__', '')] ?? {},
    }));
    // Two rounds: a round runs at most 16 calls.
    const provider = new ScriptedProvider([
      { toolCalls: calls.slice(0, 10) },
      { toolCalls: calls.slice(10) },
      (call) =>
        call.method === 'complete'
          ? { text: 'a completion for the server' }
          : { text: calls.map((each) => `${each.name}: ${toolMessage(call, each.id)?.content}`).join('\n') },
    ]);
    const result = await new ChatService({ provider, tools: manager }).respond({
      history: [],
      userMessage: 'everything',
      elicit: async (request) =>
        request.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { name: 'Taro' } },
      approve: async () => ({ outcome: 'approved' }),
    });
    expect(names).toHaveLength(19);
    const failed = result.trace.filter((step) => !step.ok).map((step) => step.name);
    expect(failed, result.text).toEqual([]);
  }, 60_000);

  it('elicitation without anyone to ask is declined, and the tool says so', async () => {
    const manager = await connect();
    const chat = new ChatService({ provider: callOnce(elicitTool), tools: manager });
    const result = await chat.respond({ history: [], userMessage: 'ask me' });
    expect(result.text).toContain('User declined');
  });

  it('sampling runs on the turn’s model after the person approves, with the server’s messages only', async () => {
    const manager = await connect();
    const provider = callOnce(sampleTool, { prompt: 'summarise', maxTokens: 5000 });
    const approvals: ApprovalRequest[] = [];
    const chat = new ChatService({ provider, tools: manager, sampling: { maxTokens: 200 } });
    const result = await chat.respond({
      history: [{ role: 'user', content: 'my private earlier question' }],
      userMessage: 'sample please',
      approve: async (request) => {
        approvals.push(request);
        return { outcome: 'approved' };
      },
    });
    expect(approvals).toEqual([
      expect.objectContaining({ server: 'everything', tool: 'sampling/createMessage', sampling: true }),
    ]);
    const completion = provider.calls.find((call) => call.method === 'complete');
    // The server sees neither the person's conversation nor the turn's system prompt.
    expect(completion?.messages).toEqual([
      { role: 'system', content: 'You are a helpful test server.' },
      { role: 'user', content: 'Resource trigger-sampling-request context: summarise' },
    ]);
    expect(completion?.options?.maxTokens).toBe(200);
    expect(result.text).toContain('a completion for the server');
  });

  it('sampling the person declines is refused to the server, and never reaches the model', async () => {
    const manager = await connect();
    const provider = callOnce(sampleTool, { prompt: 'x' });
    const chat = new ChatService({ provider, tools: manager });
    const result = await chat.respond({
      history: [],
      userMessage: 'sample please',
      approve: async () => ({ outcome: 'denied', reason: 'not now' }),
    });
    expect(provider.calls.some((call) => call.method === 'complete')).toBe(false);
    expect(result.text).toMatch(/declined the completion: not now/);
  });

  it('#43.16 a URL elicitation required error (-32042): each URL goes to the person, and the model reads that they were asked', async () => {
    const manager = await connect();
    const asked: ElicitationRequest[] = [];
    const events: ChatEvent[] = [];
    const provider = callOnce('mcp__everything__trigger-url-elicitation', {
      url: 'https://auth.example.com/connect?elicitation=abc',
      message: 'Sign in to Example to continue.',
      elicitationId: 'elicitation-43-16',
      errorPath: true,
    });
    const chat = new ChatService({ provider, tools: manager });
    const result = await chat.respond({
      history: [],
      userMessage: 'open it',
      onEvent: (event) => events.push(event),
      elicit: async (request) => {
        asked.push(request);
        return { action: 'accept' };
      },
    });
    // The error's own elicitation (server-everything names its prerequisite page) reaches the person.
    expect(asked).toEqual([
      {
        server: 'everything',
        mode: 'url',
        message: 'Open this link to satisfy the prerequisite, then retry the request.',
        url: 'https://modelcontextprotocol.io',
        elicitationId: expect.any(String),
      },
    ]);
    expect(events).toContainEqual({ type: 'elicitation', server: 'everything', mode: 'url' });
    // The model reads what happened, not a bare error: the person was asked to open the page.
    const told = toolMessage(provider.calls.at(-1) as never, 'call_1')?.content ?? '';
    expect(told).toContain('asked the user to open a page');
    expect(told).toContain('Open this link to satisfy the prerequisite');
    expect(told).toContain('https://modelcontextprotocol.io');
    expect(told).toContain('accepted');
    expect(told).not.toMatch(/MCP error -32042/);
    expect(result.text).toContain('asked the user to open a page');
  });

  it('#43.16 a URL elicitation required error with nobody to ask: the model reads that the person could not be asked', async () => {
    const manager = await connect();
    const provider = callOnce('mcp__everything__trigger-url-elicitation', {
      url: 'https://auth.example.com/connect',
      errorPath: true,
    });
    await new ChatService({ provider, tools: manager }).respond({ history: [], userMessage: 'open it' });
    const told = toolMessage(provider.calls.at(-1) as never, 'call_1')?.content ?? '';
    expect(told).toContain('needs the user to open a page first');
    expect(told).toContain('could not be asked here');
  });
});
