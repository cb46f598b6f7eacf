import { rmSync } from 'node:fs';
import { type FakeJma, startFakeJma } from '@ai-assistant/mcp-server-weather/testing';
import {
  childProcesses,
  completion,
  embeddedStoreFolder,
  type FakeRequest,
  type FakeVendor,
  startFakeVendor,
  startTokenServer,
  type TokenServer,
  tokenOf,
  writeMcpConfig,
} from '@ai-assistant/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from './run-chat.js';

function ticketsModel(request: FakeRequest) {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: string | null }>;
  const last = messages.at(-1);
  if (last?.role === 'tool') return completion(request, { text: `結果: ${last.content}` });
  return completion(request, { toolCall: { name: 'mcp__tickets__whoami', arguments: {} } });
}

describe('terminal chat: /connect, /disconnect, /servers with the store', () => {
  let jma: FakeJma;
  let llm: FakeVendor;
  let tickets: TokenServer;
  let dataDir: string;
  let config: ReturnType<typeof writeMcpConfig>;
  let env: Record<string, string>;
  beforeAll(async () => {
    [jma, llm, tickets] = await Promise.all([startFakeJma(), startFakeVendor(), startTokenServer()]);
    llm.respondWith(ticketsModel);
    dataDir = embeddedStoreFolder('chat-store-');
    config = writeMcpConfig(jma.baseUrl, {
      tickets: {
        url: tickets.url,
        headers: { Authorization: 'Bearer ${token}' },
        credential_help: 'Create a token at https://tickets.example/settings/tokens (scope: read).',
      },
    });
    env = {
      MCP_ENABLED: 'true',
      MCP_SERVERS_CONFIG: config.path,
      OPENAI_API_KEY: 'sk-test-0123456789',
      OPENAI_BASE_URL: llm.baseURL,
      DATA_DIR: dataDir,
    };
  });
  afterAll(async () => {
    await Promise.all([jma.close(), llm.close()]);
    tickets.close();
    config.remove();
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
  });

  it('the local user connects with hidden input, is then asked as themselves, and the token stays out of the output', async () => {
    const secret = tokenOf('alice');
    const first = await run([], env, `/servers\n/connect tickets\n${secret}\n/servers\nチケットは？\n`);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('you: not connected (/connect tickets)');
    expect(first.stdout).toContain('✓ connected: tickets now uses your own token.');
    // The server's credential_help is shown before the token is asked for.
    expect(first.stdout).toContain(
      'Create a token at https://tickets.example/settings/tokens (scope: read).',
    );
    expect(first.stdout).toContain('you: connected');
    expect(first.stdout).toContain('結果: you are alice');
    expect(first.stdout + first.stderr).not.toContain(secret);

    // Kept in the store (DATA_DIR): the next run is still alice.
    const again = await run(['--once', 'チケットは？'], env, '');
    expect(again.stdout).toContain('結果: you are alice');

    const removed = await run([], env, '/disconnect tickets\n');
    expect(removed.stdout).toContain('Disconnected tickets: your token is deleted.');
    const after = await run(['--once', 'チケットは？'], env, '');
    expect(after.stdout).toContain('/connect tickets');
    expect(childProcesses()).toEqual([]);
  });
});
