import { join } from 'node:path';
import type { ToolCall } from '@ai-assistant/chat-types';
import { ScriptedProvider } from '@ai-assistant/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { ChatService } from '../src/chat/chat-service.js';
import type { ServerConfig } from '../src/config/mcp-config.js';
import { fixtures, managerPool, nodeServer } from './helpers.js';

const echo = join(fixtures, 'echo-server.mjs');
const pool = managerPool();
const connect = (...servers: ServerConfig[]) => pool.connect(servers);
afterEach(pool.closeAll);

/** `count` calls of the echo server's `track` tool, which reports the most calls it saw at once. */
function trackCalls(count: number): ToolCall[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `c${index}`,
    name: 'mcp__echo__track',
    arguments: { ms: 30 },
  }));
}

describe('the loop’s valves', () => {
  it('500 calls in one round: 16 run, at most 4 at once on one server, the rest answered with an error', async () => {
    const calls = trackCalls(500);
    const provider = new ScriptedProvider([{ toolCalls: calls }, { text: 'done' }]);
    const chat = new ChatService({ provider, tools: await connect(nodeServer('echo', echo)) });
    const result = await chat.respond({ history: [], userMessage: 'fan out' });
    const results = provider.calls[1]!.messages.filter((message) => message.role === 'tool');
    // Every call the model made gets its answer (the vendors require one per call), in order.
    expect(results.map((message) => message.toolCallId)).toEqual(calls.map((call) => call.id));
    const ran = results.filter((message) => !message.isError);
    expect(ran).toHaveLength(16);
    const mostAtOnce = Math.max(
      ...ran.map((message) => Number(/most in flight: (\d+)/.exec(message.content)?.[1])),
    );
    expect(mostAtOnce).toBe(4);
    const refused = results.filter((message) => message.isError);
    expect(refused).toHaveLength(484);
    expect(refused[0]?.content).toMatch(/not run: at most 16 tool calls run in one round/);
    expect(result.trace).toHaveLength(500);
  }, 30_000);

  it('maxToolCallsPerRound and maxConcurrentPerServer are settings', async () => {
    const calls = trackCalls(6);
    const provider = new ScriptedProvider([{ toolCalls: calls }, { text: 'done' }]);
    const manager = await pool.connect([nodeServer('echo', echo)], { maxConcurrentPerServer: 2 });
    await new ChatService({ provider, tools: manager, maxToolCallsPerRound: 5 }).respond({
      history: [],
      userMessage: 'fan out',
    });
    const results = provider.calls[1]!.messages.filter((message) => message.role === 'tool');
    expect(results.filter((message) => !message.isError)).toHaveLength(5);
    expect(results.at(-1)?.content).toMatch(/at most 5 tool calls/);
    expect(results[4]?.content).toBe('most in flight: 2');
  }, 30_000);

  it('a response_instruction already given with the auto-context lookup is not repeated on a tool result', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'c1', name: 'mcp__echo__echo', arguments: { message: 'again' } }] },
      { text: 'ok' },
    ]);
    const tools = await connect(
      nodeServer('echo', echo, [], { autoContextTool: 'echo', responseInstruction: 'Cite the echo.' }),
    );
    await new ChatService({ provider, tools }).respond({ history: [], userMessage: 'hello' });
    const system = provider.calls[0]!.messages[0]!.content;
    expect(system.match(/Cite the echo\./g)).toHaveLength(1);
    const everything = JSON.stringify(provider.calls[1]!.messages);
    expect(everything.match(/Cite the echo\./g)).toHaveLength(1);
  }, 30_000);
});
