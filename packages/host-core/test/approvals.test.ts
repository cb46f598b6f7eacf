import { join } from 'node:path';
import { ScriptedProvider, toolMessage } from '@ai-assistant/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ApprovalDecision,
  type ApprovalRequest,
  type ChatEvent,
  ChatService,
} from '../src/chat/chat-service.js';
import type { ServerConfig } from '../src/config/mcp-config.js';
import { parseMcpConfig } from '../src/config/mcp-config.js';
import { fixtures, managerPool, nodeServer } from './helpers.js';

const echo = join(fixtures, 'echo-server.mjs');
const pool = managerPool();
afterEach(pool.closeAll);

/** A model that asks, in one round, for a write (write_note) and a read (slow echo), then answers. */
function writeAndRead() {
  return new ScriptedProvider([
    {
      toolCalls: [
        { id: 'w', name: 'mcp__notes__write_note', arguments: { text: '会議は 15 時から' } },
        { id: 'r', name: 'mcp__notes__sleep', arguments: { ms: 50 } },
      ],
    },
    { text: 'done' },
  ]);
}

describe('a person approves what changes the world', () => {
  it('hints and the policy show in listTools(): writes need approval under the default "writes"', async () => {
    const mcp = await pool.connect([nodeServer('notes', echo)]);
    const byName = Object.fromEntries(mcp.listTools().map((tool) => [tool.name, tool]));
    expect(byName.mcp__notes__write_note).toMatchObject({
      needsApproval: true,
      hints: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
    });
    expect(byName.mcp__notes__echo).toMatchObject({ needsApproval: false, hints: { readOnly: true } });
    expect(mcp.status()[0]?.approval).toBe('writes');
  });

  it('the read runs at once while the write waits; approved, the write runs', async () => {
    const provider = writeAndRead();
    const tools = await pool.connect([nodeServer('notes', echo)]);
    const events: ChatEvent[] = [];
    const requests: ApprovalRequest[] = [];
    const result = await new ChatService({ provider, tools }).respond({
      history: [],
      userMessage: 'メモして',
      onEvent: (event) => events.push(event),
      approve: async (request) => {
        requests.push(request);
        // Answer only once the read of the same round has finished: it did not wait for us.
        while (!events.some((event) => event.type === 'tool_end' && event.callId === 'r'))
          await new Promise((resolve) => setTimeout(resolve, 10));
        return { outcome: 'approved', by: 'U1' };
      },
    });
    expect(requests).toEqual([
      {
        name: 'mcp__notes__write_note',
        server: 'notes',
        tool: 'write_note',
        arguments: { text: '会議は 15 時から' },
        hints: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
      },
    ]);
    expect(toolMessage(provider.calls[1]!, 'w')).toMatchObject({
      isError: false,
      content: 'stored note 1: 会議は 15 時から',
    });
    expect(result.trace.map((entry) => [entry.tool, entry.ok])).toEqual([
      ['write_note', true],
      ['sleep', true],
    ]);
    expect((await tools.callTool('mcp__notes__read_notes', {})).text).toBe('会議は 15 時から');
  });

  it("an approved call's duration (trace, tool_end, audit) counts the call, not the wait for the person", async () => {
    const provider = writeAndRead();
    const tools = await pool.connect([nodeServer('notes', echo)]);
    const events: ChatEvent[] = [];
    const audited: Array<{ tool: string; durationMs: number }> = [];
    let approvedAt = 0;
    let endedAt = 0;
    const result = await new ChatService({
      provider,
      tools,
      audit: (entry) => void audited.push({ tool: entry.tool, durationMs: entry.durationMs }),
    }).respond({
      history: [],
      userMessage: 'メモして',
      person: { workspace: 'T1', user: 'U1' },
      onEvent: (event) => {
        events.push(event);
        if (event.type === 'tool_end' && event.callId === 'w') endedAt = performance.now();
      },
      approve: async () => {
        // The person answers after the round's read (a 50 ms sleep) has finished.
        while (!events.some((event) => event.type === 'tool_end' && event.callId === 'r'))
          await new Promise((resolve) => setTimeout(resolve, 10));
        approvedAt = performance.now();
        return { outcome: 'approved', by: 'U1' };
      },
    });
    // Measured inside the span from the approval to the call's end, so it cannot be longer than that span.
    const write = result.trace.find((entry) => entry.tool === 'write_note');
    expect(write?.durationMs).toBeLessThanOrEqual(endedAt - approvedAt);
    const ended = events.find((event) => event.type === 'tool_end' && event.callId === 'w');
    expect(ended && 'durationMs' in ended ? ended.durationMs : Number.NaN).toBe(write?.durationMs);
    expect(audited.find((entry) => entry.tool === 'write_note')?.durationMs).toBe(write?.durationMs);
  });

  const declined: Array<[string, ApprovalDecision, RegExp]> = [
    [
      'denied with a reason: the model reads the reason',
      { outcome: 'denied', reason: '今日は書かないで' },
      /declined to run mcp__notes__write_note, saying: "今日は書かないで"/,
    ],
    [
      'expired: the model reads that nobody answered in time',
      { outcome: 'expired' },
      /did not answer the approval request .* in time/,
    ],
  ];
  it.each(declined)('%s; the write never reaches the server', async (_name, decision, expected) => {
    const provider = writeAndRead();
    const tools = await pool.connect([nodeServer('notes', echo)]);
    const events: ChatEvent[] = [];
    const audited: Array<{ tool: string; outcome: string; durationMs: number }> = [];
    await new ChatService({
      provider,
      tools,
      audit: (entry) =>
        void audited.push({ tool: entry.tool, outcome: entry.outcome, durationMs: entry.durationMs }),
    }).respond({
      history: [],
      userMessage: 'メモして',
      person: { workspace: 'T1', user: 'U1' },
      onEvent: (event) => void events.push(event),
      approve: async () => {
        // The person answers after the round's read (a 50 ms sleep) has finished.
        while (!events.some((event) => event.type === 'tool_end' && event.callId === 'r'))
          await new Promise((resolve) => setTimeout(resolve, 10));
        return decision;
      },
    });
    // #48 audited as denied, and with no duration: nothing ran, and the wait was the person's.
    expect(audited.find((entry) => entry.tool === 'write_note')).toEqual({
      tool: 'write_note',
      outcome: 'denied',
      durationMs: 0,
    });
    expect(toolMessage(provider.calls[1]!, 'w')).toMatchObject({
      isError: true,
      content: expect.stringMatching(expected),
    });
    expect(toolMessage(provider.calls[1]!, 'r')?.isError).toBe(false);
    // The server's own record: nothing was written.
    expect((await tools.callTool('mcp__notes__read_notes', {})).text).toBe('no notes');
  });

  it('a declined call asked again in the same turn is refused without asking again', async () => {
    const write = { id: 'w1', name: 'mcp__notes__write_note', arguments: { text: 'x' } };
    const provider = new ScriptedProvider([
      { toolCalls: [write] },
      { toolCalls: [{ ...write, id: 'w2' }] },
      { text: 'ok' },
    ]);
    const tools = await pool.connect([nodeServer('notes', echo)]);
    let asked = 0;
    await new ChatService({ provider, tools }).respond({
      history: [],
      userMessage: 'メモして',
      approve: async () => {
        asked++;
        return { outcome: 'denied' };
      },
    });
    expect(asked).toBe(1);
    expect(toolMessage(provider.calls[2]!, 'w2')?.content).toMatch(
      /not run: the person declined.*Do not call it again/,
    );
    expect((await tools.callTool('mcp__notes__read_notes', {})).text).toBe('no notes');
  });

  it('no approver: a call that needs approval is refused with a clear error, and nothing runs', async () => {
    const provider = writeAndRead();
    const tools = await pool.connect([nodeServer('notes', echo)]);
    const audited: string[] = [];
    await new ChatService({ provider, tools, audit: (entry) => void audited.push(entry.outcome) }).respond({
      history: [],
      userMessage: 'メモして',
      person: { workspace: 'T1', user: 'U1' },
    });
    expect(toolMessage(provider.calls[1]!, 'w')).toMatchObject({
      isError: true,
      content: expect.stringContaining("needs a person's approval before it runs"),
    });
    // #48 refused, not failed: the audit says denied (the read beside it ran: ok).
    expect(audited.sort()).toEqual(['denied', 'ok']);
    expect((await tools.callTool('mcp__notes__read_notes', {})).text).toBe('no notes');
  });

  it('policies: "auto" runs everything, "always" asks for reads too, a list asks for the named tools', async () => {
    const servers: ServerConfig[] = [
      nodeServer('auto', echo, [], { approval: 'auto' }),
      nodeServer('always', echo, [], { approval: 'always' }),
      nodeServer('listed', echo, [], { approval: ['echo'] }),
    ];
    const mcp = await pool.connect(servers);
    const needs = (name: string) => mcp.listTools().find((tool) => tool.name === name)?.needsApproval;
    expect([
      needs('mcp__auto__write_note'),
      needs('mcp__always__echo'),
      needs('mcp__listed__echo'),
      needs('mcp__listed__write_note'),
    ]).toEqual([false, true, true, false]);
  });

  it('OpenAPI hints come from the method; builtin tools default to "auto"', () => {
    const spec = {
      openapi: '3.0.3',
      info: { title: 'pets', version: '1' },
      servers: [{ url: 'http://127.0.0.1:9/api' }],
      paths: {
        '/pets': { get: { operationId: 'listPets' }, post: { operationId: 'addPet' } },
        '/pets/{id}': {
          put: {
            operationId: 'replacePet',
            parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          },
          delete: {
            operationId: 'deletePet',
            parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          },
        },
      },
    };
    const [pets, calc] = parseMcpConfig(
      JSON.stringify({
        mcpServers: { pets: { type: 'openapi', openapi_spec: spec }, calc: { type: 'builtin' } },
      }),
      'test.json',
      {},
    );
    return pool.connect([pets as ServerConfig, calc as ServerConfig]).then((mcp) => {
      const tool = (name: string) => mcp.listTools().find((entry) => entry.name === name);
      expect(tool('mcp__pets__listPets')).toMatchObject({ needsApproval: false, hints: { readOnly: true } });
      expect(tool('mcp__pets__addPet')).toMatchObject({
        needsApproval: true,
        hints: { readOnly: false, destructive: true, idempotent: false },
      });
      expect(tool('mcp__pets__replacePet')?.hints).toMatchObject({ destructive: true, idempotent: true });
      expect(tool('mcp__pets__deletePet')).toMatchObject({
        needsApproval: true,
        hints: { destructive: true, idempotent: true },
      });
      expect(tool('mcp__calc__calculate')).toMatchObject({ needsApproval: false, hints: { readOnly: true } });
      expect(mcp.status().map((server) => server.approval)).toEqual(['writes', 'auto']);
    });
  });
});
