import { rmSync } from 'node:fs';
import { type FakeJma, startFakeJma } from '@ai-assistant/mcp-server-weather/testing';
import {
  completion,
  embeddedStoreFolder,
  type FakeVendor,
  startFakeVendor,
  startTokenServer,
  type TokenServer,
  tokenOf,
  writeMcpConfig,
} from '@ai-assistant/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from './run-chat.js';

// A per-person server whose connection fails when it opens (the token is refused at initialize):
// the terminal's /servers says so, with why.
describe('terminal chat: a person’s own connection that fails when it opens', () => {
  let jma: FakeJma;
  let llm: FakeVendor;
  let tickets: TokenServer;
  let dataDir: string;
  let config: ReturnType<typeof writeMcpConfig>;
  let env: Record<string, string>;
  beforeAll(async () => {
    [jma, llm, tickets] = await Promise.all([
      startFakeJma(),
      startFakeVendor(),
      startTokenServer({ requireToken: true }),
    ]);
    llm.respondWith((request) => completion(request, { text: 'こんにちは' }));
    dataDir = embeddedStoreFolder('chat-own-');
    config = writeMcpConfig(jma.baseUrl, {
      tickets: { url: tickets.url, headers: { Authorization: 'Bearer ${token}' }, connection: 'per_user' },
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

  it('#43.25 /servers shows the connection failed, with the reason', async () => {
    const revoked = tokenOf('alice');
    tickets.revoke(revoked);
    const output = await run([], env, `/connect tickets\n${revoked}\nこんにちは\n/servers\n`);
    expect(output.code).toBe(0);
    expect(output.stdout).toMatch(/tickets \(http\): failed — HTTP 401.* — you: connected/);
    expect(output.stdout + output.stderr).not.toContain(revoked);
  });
});
