import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import {
  bothErasModel,
  type FakeVendor,
  type ModernServer,
  startFakeVendor,
  startModernServer,
} from '@ai-assistant/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from './run-chat.js';

const everythingEntry = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

describe('#45 a 2026-07-28-only server and a 2025-only server in one terminal turn', () => {
  let llm: FakeVendor;
  let modern: ModernServer;
  let folder: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    [llm, modern] = await Promise.all([startFakeVendor(), startModernServer()]);
    llm.respondWith(bothErasModel);
    folder = mkdtempSync(resolve(tmpdir(), 'chat-eras-'));
    const config = resolve(folder, 'mcp_servers.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          modern: { url: modern.url, approval: 'auto' },
          everything: { command: process.execPath, args: [everythingEntry, 'stdio'], approval: 'auto' },
        },
      }),
    );
    env = {
      OPENAI_API_KEY: 'sk-cli-test-0123456',
      OPENAI_BASE_URL: llm.baseURL,
      LLM_MAX_RETRIES: '0',
      MCP_ENABLED: 'true',
      MCP_SERVERS_CONFIG: config,
    };
  });
  afterAll(async () => {
    await llm?.close();
    modern?.close();
    rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
  });

  it('#45 both tools run and the answer quotes both', async () => {
    const result = await run(['--once', '札幌の天気と echo'], env);
    expect(result.stdout, result.stderr).toContain('札幌: sunny (2026-07-28)');
    expect(result.stdout).toContain('Echo: from 2025');
    expect(result.code).toBe(0);
    expect(new Set(modern.versions)).toEqual(new Set(['2026-07-28']));
  }, 60_000);
});
