import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ModernServer, ScriptedProvider, startModernServer, toolMessage } from '@ai-assistant/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ChatService } from '../src/chat/chat-service.js';
import type { ElicitationRequest } from '../src/tool-host.js';
import { everythingEntry, fixtures, managerPool, nodeServer, remoteServer } from './helpers.js';

// Both eras of MCP in one host: a server that speaks 2026-07-28 only (the SDK's createMcpHandler,
// stateless, 2025 clients refused) and server-everything from npm, which speaks the 2025 revisions only.
describe('MCP 2026-07-28 and 2025-11-25 servers side by side', () => {
  let modern: ModernServer;
  const pool = managerPool();
  beforeAll(async () => {
    modern = await startModernServer();
  });
  afterEach(() => pool.closeAll());
  afterAll(() => modern?.close());

  const servers = () => [
    remoteServer('modern', 'http', modern.url, { approval: 'auto' }),
    nodeServer('everything', everythingEntry, ['stdio'], { approval: 'auto' }),
  ];

  it('each connection finds its era; one turn calls a tool of each', async () => {
    const manager = await pool.connect(servers());
    expect(manager.status().map((server) => [server.name, server.state, server.protocolVersion])).toEqual([
      ['modern', 'connected', '2026-07-28'],
      ['everything', 'connected', '2025-11-25'],
    ]);
    // Every request to the modern server carried its revision: no initialize, no session.
    expect(new Set(modern.versions)).toEqual(new Set(['2026-07-28']));
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          { id: 'call_1', name: 'mcp__modern__forecast', arguments: { city: 'Sapporo' } },
          { id: 'call_2', name: 'mcp__everything__echo', arguments: { message: 'from 2025' } },
        ],
      },
      (call) => ({
        text: `${toolMessage(call, 'call_1')?.content} / ${toolMessage(call, 'call_2')?.content}`,
      }),
    ]);
    const chat = new ChatService({ provider, tools: manager });
    const result = await chat.respond({ history: [], userMessage: 'both, please' });
    expect(result.text).toBe('Sapporo: sunny (2026-07-28) / Echo: from 2025');
  });

  it('2026-07-28 elicitation arrives as a multi round-trip request and is answered by the same prompt', async () => {
    const manager = await pool.connect(servers());
    const asked: ElicitationRequest[] = [];
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'call_1', name: 'mcp__modern__book', arguments: { place: 'Kanda' } }] },
      (call) => ({ text: `tool said: ${toolMessage(call, 'call_1')?.content}` }),
    ]);
    const chat = new ChatService({ provider, tools: manager });
    const result = await chat.respond({
      history: [],
      userMessage: 'book it',
      elicit: async (request) => {
        asked.push(request);
        return { action: 'accept', content: { confirm: true } };
      },
    });
    expect(asked).toEqual([
      expect.objectContaining({ server: 'modern', mode: 'form', message: 'Book a table at Kanda?' }),
    ]);
    expect(result.text).toBe('tool said: booked Kanda');
  });

  it('protocol_version "2025-11-25" against a 2026-only server fails with the reason; "2026-07-28" connects', async () => {
    const manager = await pool.connect([
      remoteServer('old', 'http', modern.url, { protocolVersion: '2025-11-25' }),
      remoteServer('pinned', 'http', modern.url, { protocolVersion: '2026-07-28' }),
    ]);
    const [old, pinned] = manager.status();
    expect(old?.state).not.toBe('connected');
    expect(old?.reason).toMatch(/Unsupported protocol version|2026-07-28/);
    expect(pinned).toMatchObject({ state: 'connected', protocolVersion: '2026-07-28' });
  });

  it('a 2025 stdio server that the era question ends is started again with initialize, and is remembered', async () => {
    const starts = join(mkdtempSync(join(tmpdir(), 'eras-')), 'starts');
    const strict = nodeServer('strict', join(fixtures, 'strict-2025-server.mjs'), ['--starts', starts]);
    const first = await pool.connect([strict]);
    expect(first.status()[0]).toMatchObject({ state: 'connected', protocolVersion: '2025-11-25' });
    expect((await first.callTool('mcp__strict__ping', {})).text).toBe('pong');
    expect(readFileSync(starts, 'utf8')).toHaveLength(2);
    // Another manager of this process knows its era now: one start, no question.
    const second = await pool.connect([strict]);
    expect(second.status()[0]).toMatchObject({ state: 'connected', protocolVersion: '2025-11-25' });
    expect(readFileSync(starts, 'utf8')).toHaveLength(3);
  });
});
