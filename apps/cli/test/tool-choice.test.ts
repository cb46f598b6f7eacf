import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { catalogServerPath, childProcesses, type FakeVendor, startFakeVendor } from '@ai-assistant/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { run } from './run-chat.js';

// Four real servers (child processes on the real SDK) listing what github, gitlab, notion and stripe
// list: 190 tools, recorded from the real servers on npm.
const catalogs = resolve(import.meta.dirname, '../../../packages/host-core/bench/fixtures/tool-catalog');

afterEach(() => {
  expect(childProcesses()).toEqual([]);
});

describe('#42 the terminal chat with a large catalog', () => {
  let llm: FakeVendor;
  let folder: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    llm = await startFakeVendor();
    folder = mkdtempSync(resolve(tmpdir(), 'chat-catalog-'));
    const servers = Object.fromEntries(
      ['github', 'gitlab', 'notion', 'stripe'].map((server) => [
        server,
        { command: process.execPath, args: [catalogServerPath, resolve(catalogs, `${server}.json`)] },
      ]),
    );
    writeFileSync(resolve(folder, 'mcp_servers.json'), JSON.stringify({ mcpServers: servers }));
    env = {
      // The OpenAI-compatible provider (Ollama, LM Studio, vLLM) once sent every tool it was given.
      LLM_PROVIDER: 'openai-compatible',
      LLM_BASE_URL: llm.baseURL,
      LLM_MAX_RETRIES: '0',
      MCP_ENABLED: 'true',
      MCP_SERVERS_CONFIG: resolve(folder, 'mcp_servers.json'),
    };
  });
  afterAll(async () => {
    await llm?.close();
    rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
  });

  it('the compatible provider sends the chosen few, not all 190', async () => {
    llm.reply({
      json: {
        id: 'c1',
        object: 'chat.completion',
        created: 0,
        model: 'local-model',
        choices: [
          {
            index: 0,
            finish_reason: 'stop',
            message: { role: 'assistant', content: '残高は 1,000 円です。' },
          },
        ],
      },
    });
    const { code, stdout } = await run(['--once', '今のStripeの残高いくら？'], env);
    expect(code).toBe(0);
    expect(stdout).toContain('残高は 1,000 円です。');
    const sent = llm.requests.at(-1)?.body.tools as Array<{ function: { name: string } }>;
    const names = sent.map((tool) => tool.function.name);
    expect(names).toContain('mcp__stripe__retrieve_balance');
    expect(names).toContain('host__find_tools');
    expect(names.length).toBeLessThanOrEqual(24);
  });

  it('/tools <words> shows what a question is offered, with why', async () => {
    const { code, stdout } = await run([], env, '/tools 先月のチャージバック\n/exit\n');
    expect(code).toBe(0);
    expect(stdout).toMatch(/"先月のチャージバック" is offered \d+ tools of 190/);
    expect(stdout).toContain('mcp__stripe__list_disputes');
    expect(stdout).toMatch(/words: [^\n]*dispute/);
  });
});
