import { join } from 'node:path';
import { catalogServerPath, ScriptedProvider, toolMessage } from '@ai-assistant/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures as benchFixtures } from '../bench/recorded-catalog.js';
import { ChatService } from '../src/chat/chat-service.js';
import { findToolsName } from '../src/choice/tool-choice.js';
import type { McpClientManager } from '../src/mcp/client-manager.js';
import { managerPool, nodeServer } from './helpers.js';

// Four real servers from the recorded catalog (github 26, gitlab 118, notion 24, stripe 22 tools: 190),
// each a child process on the real SDK listing exactly what the real server listed.
const pool = managerPool();
const recorded = (server: string) =>
  nodeServer(server, catalogServerPath, [join(benchFixtures, 'tool-catalog', `${server}.json`)]);
let host: McpClientManager;

beforeAll(async () => {
  host = await pool.connect(['github', 'gitlab', 'notion', 'stripe'].map(recorded));
  expect(host.listTools().length).toBe(190);
});
afterAll(pool.closeAll);

const offeredIn = (provider: ScriptedProvider, call: number) =>
  provider.calls[call]?.tools.map((tool) => tool.name) ?? [];

describe('#42 each question is offered the few tools that fit', () => {
  it('a Japanese question reaches a tool whose description is English, among few', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'c1', name: 'mcp__stripe__retrieve_balance', arguments: {} }] },
      (call) => ({ text: `残高: ${toolMessage(call, 'c1')?.content}` }),
    ]);
    const chat = new ChatService({ provider, tools: host });
    const result = await chat.respond({ history: [], userMessage: '今のStripeの残高いくら？' });
    const offered = offeredIn(provider, 0);
    expect(offered).toContain('mcp__stripe__retrieve_balance');
    expect(offered).toContain(findToolsName);
    expect(offered.length).toBeLessThanOrEqual(24);
    expect(result.text).toBe('残高: stripe ran retrieve_balance with {}');
    expect(result.usedTools).toEqual(['mcp__stripe__retrieve_balance']);
  });

  it('a tool found by the search tool is offered and called in the next round', async () => {
    const wanted = 'mcp__gitlab__get_merge_request_conflicts';
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          { id: 's1', name: findToolsName, arguments: { query: 'merge request conflicts gitlab' } },
        ],
      },
      (call) => {
        expect(toolMessage(call, 's1')?.content).toContain(wanted);
        expect(call.tools.map((tool) => tool.name)).toContain(wanted);
        return {
          toolCalls: [
            { id: 'c2', name: wanted, arguments: { project_id: 'shop', merge_request_iid: '214' } },
          ],
        };
      },
      (call) => ({ text: toolMessage(call, 'c2')?.content ?? 'nothing' }),
    ]);
    const chat = new ChatService({ provider, tools: host });
    // Words that name no tool: the first request cannot hold the right one.
    const result = await chat.respond({ history: [], userMessage: 'ちょっと手伝ってほしい' });
    expect(offeredIn(provider, 0)).not.toContain(wanted);
    expect(result.text).toBe(
      'gitlab ran get_merge_request_conflicts with {"project_id":"shop","merge_request_iid":"214"}',
    );
    expect(result.trace.map((entry) => [entry.name, entry.ok])).toEqual([
      [findToolsName, true],
      [wanted, true],
    ]);
  });

  it("a thread's used tools stay offered when the next question names none of them", async () => {
    const used = 'mcp__notion__API-post-search';
    const provider = new ScriptedProvider([{ text: 'はい。' }]);
    const chat = new ChatService({ provider, tools: host });
    const result = await chat.respond({
      history: [
        { role: 'user', content: 'Dig up the onboarding doc in Notion' },
        { role: 'assistant', content: 'Found it.' },
      ],
      usedTools: [used],
      userMessage: 'それの続きをもう少し',
    });
    expect(offeredIn(provider, 0)).toContain(used);
    expect(result.usedTools).toEqual([used]);
  });

  it('a question that needs no tool is offered only a small set and answered without a call', async () => {
    const provider = new ScriptedProvider([{ text: 'どういたしまして！' }]);
    const chat = new ChatService({ provider, tools: host });
    const result = await chat.respond({ history: [], userMessage: 'ありがとう、助かった！' });
    expect(offeredIn(provider, 0).length).toBeLessThanOrEqual(8);
    expect(result.trace).toEqual([]);
    expect(result.text).toBe('どういたしまして！');
  });

  it('a small catalog is offered whole, with no search tool', async () => {
    const small = await pool.connect([recorded('stripe')]);
    const provider = new ScriptedProvider([{ text: 'ok' }]);
    await new ChatService({ provider, tools: small }).respond({ history: [], userMessage: 'hello' });
    expect(offeredIn(provider, 0).length).toBe(22);
    expect(offeredIn(provider, 0)).not.toContain(findToolsName);
  });
});
