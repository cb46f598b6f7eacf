import { join } from 'node:path';
import { ScriptedProvider } from '@ai-assistant/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatService } from '../src/chat/chat-service.js';
import type { ToolAuditEntry } from '../src/chat/chat-types.js';
import { McpClientManager } from '../src/mcp/client-manager.js';
import { fixtures, nodeServer } from './helpers.js';

const person = { workspace: 'T1', user: 'U1' };

function clock(iso = '2026-11-23T21:30:00Z') {
  let now = Date.parse(iso);
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}

describe('audit', () => {
  let mcp: McpClientManager;
  beforeAll(async () => {
    mcp = new McpClientManager();
    await mcp.connect([nodeServer('echo', join(fixtures, 'echo-server.mjs'))]);
  });
  afterAll(() => mcp.close());

  it('one entry per tool call: who, the arguments redacted, the approval (or none), the outcome', async () => {
    const entries: ToolAuditEntry[] = [];
    const secret = 'sk-personal-secret-value-1234';
    const provider = new ScriptedProvider([
      (call) =>
        call.messages.some((message) => message.role === 'tool')
          ? { text: 'done' }
          : {
              toolCalls: [
                { id: 'w', name: 'mcp__echo__write_note', arguments: { text: `remember ${secret}` } },
                { id: 'r', name: 'mcp__echo__read_notes', arguments: {} },
                { id: 'd', name: 'mcp__echo__write_note', arguments: { text: 'second' } },
              ],
            },
    ]);
    const time = clock();
    const chat = new ChatService({
      provider,
      tools: mcp,
      audit: (entry) => void entries.push(entry),
      now: time.now,
    });
    await chat.respond({
      history: [],
      userMessage: 'note it',
      person,
      tokens: { token: secret },
      approve: async (request) =>
        request.arguments.text === 'second' ? { outcome: 'denied', reason: 'no' } : { outcome: 'approved' },
    });
    await new Promise((resolve) => setImmediate(resolve));
    const byTool = entries.map((entry) => [entry.tool, entry.outcome, entry.approval?.by ?? 'auto']);
    expect(byTool).toEqual(
      expect.arrayContaining([
        ['write_note', 'ok', 'U1'],
        ['read_notes', 'ok', 'auto'],
        ['write_note', 'denied', 'auto'],
      ]),
    );
    expect(entries).toHaveLength(3);
    expect(
      entries.every((entry) => entry.workspace === 'T1' && entry.person === 'U1' && entry.server === 'echo'),
    ).toBe(true);
    expect(JSON.stringify(entries)).not.toContain(secret);
    expect(entries.find((entry) => entry.approval)?.arguments).toContain('[REDACTED]');
  });
});
