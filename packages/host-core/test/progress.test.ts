import { ScriptedProvider, toolMessage } from '@ai-assistant/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { type ChatEvent, ChatService } from '../src/chat/chat-service.js';
import { parseMcpConfig } from '../src/config/mcp-config.js';
import { echoServer, everythingEntry, managerPool, nodeServer } from './helpers.js';

// The reference server's long-running operation sends one progress notification per step. A request
// whose caller listens for progress (the chat loop always does) carries a progress token, and each
// notification restarts the call's timeout.
describe('progress: a call that listens carries a progress token', () => {
  const pool = managerPool();
  afterEach(() => pool.closeAll());
  const longRunning = 'mcp__everything__trigger-long-running-operation';

  it('a 4 s operation reporting each second survives a 1.5 s timeout; its progress reaches the caller', async () => {
    const manager = await pool.connect([
      nodeServer('everything', everythingEntry, ['stdio'], { timeoutMs: 1500, maxTimeoutMs: 20_000 }),
    ]);
    const updates: Array<{ progress: number; total?: number; message?: string }> = [];
    const outcome = await manager.callTool(
      longRunning,
      { duration: 4, steps: 4 },
      { onProgress: (update) => updates.push(update) },
    );
    // Before: no progress token was sent, the server reported nothing, and the call timed out at 1.5 s.
    expect(outcome.isError).toBe(false);
    expect(outcome.text).toMatch(/Long running operation completed/);
    // The last step's notification races the result itself; the ones before it always arrive.
    expect(updates.map((update) => [update.progress, update.total]).slice(0, 3)).toEqual([
      [1, 4],
      [2, 4],
      [3, 4],
    ]);
  }, 20_000);

  it('progress never extends a call past max_timeout_ms', async () => {
    const manager = await pool.connect([
      nodeServer('everything', everythingEntry, ['stdio'], { timeoutMs: 1500, maxTimeoutMs: 2500 }),
    ]);
    const updates: unknown[] = [];
    const failure = await manager
      .callTool(longRunning, { duration: 6, steps: 6 }, { onProgress: (update) => updates.push(update) })
      .catch((error) => error);
    expect(failure).toMatchObject({ code: 'REQUEST_TIMEOUT' });
    // It lived past 1.5 s on progress (reports came each second), and stopped at 2.5 s.
    expect(updates.length).toBeGreaterThanOrEqual(2);
    expect(failure.message).toMatch(/2500 ms/);
  }, 20_000);

  it('without progress the timeout holds as before', async () => {
    const manager = await pool.connect([
      nodeServer('everything', everythingEntry, ['stdio'], { timeoutMs: 1500, maxTimeoutMs: 20_000 }),
    ]);
    // One step: the only notification comes at the end, after the timeout.
    const failure = await manager
      .callTool(longRunning, { duration: 3, steps: 1 }, { onProgress: () => {} })
      .catch((error) => error);
    expect(failure).toMatchObject({ code: 'REQUEST_TIMEOUT' });
  }, 20_000);

  it('a caller that does not listen sends no progress token, as the SDK does; one that listens sends a fresh one each call', async () => {
    const manager = await pool.connect([nodeServer('echo', echoServer)]);
    const metaOf = async (options: Parameters<typeof manager.callTool>[2]) =>
      JSON.parse((await manager.callTool('mcp__echo__show_meta', {}, options)).text) as Record<
        string,
        unknown
      >;
    // No `_meta` at all: the server's SDK parses none (a tenth of a small call's cost on its side).
    expect(await metaOf({})).toEqual({});
    const first = await metaOf({ onProgress: () => {} });
    const second = await metaOf({ onProgress: () => {} });
    expect(first.progressToken).toEqual(expect.any(String));
    expect(second.progressToken).toEqual(expect.any(String));
    expect(second.progressToken).not.toBe(first.progressToken);
    // Without a listener the server cannot report progress, so a long step is not kept alive.
    const everything = await pool.connect([
      nodeServer('everything', everythingEntry, ['stdio'], { timeoutMs: 1500, maxTimeoutMs: 20_000 }),
    ]);
    const failure = await everything.callTool(longRunning, { duration: 3, steps: 3 }).catch((error) => error);
    expect(failure).toMatchObject({ code: 'REQUEST_TIMEOUT' });
  }, 20_000);

  it('the loop reports each notification as a tool_progress event of its call', async () => {
    const manager = await pool.connect([
      nodeServer('everything', everythingEntry, ['stdio'], { timeoutMs: 1500, maxTimeoutMs: 20_000 }),
    ]);
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'call_1', name: longRunning, arguments: { duration: 3, steps: 3 } }] },
      (call) => ({ text: toolMessage(call, 'call_1')?.content.includes('completed') ? 'done' : 'failed' }),
    ]);
    const events: ChatEvent[] = [];
    const chat = new ChatService({ provider, tools: manager });
    const result = await chat.respond({
      history: [],
      userMessage: 'run it',
      onEvent: (event) => events.push(event),
      approve: async () => ({ outcome: 'approved' }),
    });
    expect(result.text).toBe('done');
    expect(events.filter((event) => event.type === 'tool_progress').slice(0, 2)).toEqual([
      expect.objectContaining({
        callId: 'call_1',
        name: longRunning,
        server: 'everything',
        progress: 1,
        total: 3,
      }),
      expect.objectContaining({ callId: 'call_1', progress: 2, total: 3 }),
    ]);
  }, 20_000);

  it('max_timeout_ms below timeout_ms is refused, naming the field', () => {
    expect(() =>
      parseMcpConfig(
        JSON.stringify({ mcpServers: { s: { command: 'x', timeout_ms: 5000, max_timeout_ms: 1000 } } }),
        'mcp_servers.json',
        {},
      ),
    ).toThrow(/mcpServers\.s\.max_timeout_ms: expected at least timeout_ms \(5000\)/);
  });
});
