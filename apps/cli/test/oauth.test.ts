import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { type FakeJma, startFakeJma } from '@ai-assistant/mcp-server-weather/testing';
import {
  type AuthorizationServer,
  completion,
  type FakeRequest,
  type FakeVendor,
  freePort,
  type ProtectedServer,
  startAuthorizationServer,
  startFakeVendor,
  startProtectedServer,
  writeMcpConfig,
} from '@ai-assistant/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from './run-chat.js';

function whoamiModel(request: FakeRequest) {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: string | null }>;
  const last = messages.at(-1);
  if (last?.role === 'tool') return completion(request, { text: `結果: ${last.content}` });
  return completion(request, { toolCall: { name: 'mcp__tracker__whoami', arguments: {} } });
}

describe('terminal chat: /connect for a server with OAuth (loopback redirect, RFC 8252)', () => {
  let jma: FakeJma;
  let llm: FakeVendor;
  let as: AuthorizationServer;
  let server: ProtectedServer;
  let folder: string;
  let config: ReturnType<typeof writeMcpConfig>;
  let env: Record<string, string>;

  beforeAll(async () => {
    [jma, llm, as] = await Promise.all([startFakeJma(), startFakeVendor(), startAuthorizationServer({})]);
    server = await startProtectedServer(as.issuer);
    as.resources.push(server.url);
    llm.respondWith(whoamiModel);
    folder = mkdtempSync(resolve(tmpdir(), 'chat-oauth-'));
    // The person's browser: signs in as alice and follows the redirect back to the chat's loopback.
    const browser = resolve(folder, 'browser.mjs');
    writeFileSync(
      browser,
      `import { followAuthorization } from ${JSON.stringify(resolve(import.meta.dirname, '../../../packages/test-kit/dist/index.js'))};
const back = await followAuthorization(process.argv.at(-1), { account: 'alice' });
await fetch(back);
`,
    );
    config = writeMcpConfig(jma.baseUrl, { tracker: { url: server.url, oauth: true } });
    env = {
      MCP_ENABLED: 'true',
      MCP_SERVERS_CONFIG: config.path,
      OPENAI_API_KEY: 'sk-test-0123456789',
      OPENAI_BASE_URL: llm.baseURL,
      DATA_DIR: resolve(folder, 'data'),
      OAUTH_CALLBACK_PORT: String(await freePort()),
      BROWSER: `${process.execPath} ${browser}`,
    };
  });

  afterAll(async () => {
    await Promise.all([jma.close(), llm.close(), server.close(), as.close()]);
    config.remove();
    rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
  });

  it('/connect prints the link, a browser signs in, the chat connects; the next question reaches the server as alice; /disconnect revokes', async () => {
    const first = await run([], env, '/connect tracker\n私は誰？\n');
    expect(first.stdout).toContain('Sign in to tracker in your browser:');
    expect(first.stdout).toMatch(new RegExp(`${as.issuer.replace(/[.:/]/g, '\\$&')}/auth\\?`));
    expect(first.stdout).toContain('✓ connected: tracker now uses your own account.');
    expect(first.stdout).toContain('結果: you are alice');
    expect(server.seen.map((entry) => entry.sub)).toEqual(['alice']);

    // Kept in the store: the next run is still alice, with no sign-in.
    const again = await run(['--once', '私は誰？'], env, '');
    expect(again.stdout).toContain('結果: you are alice');

    const revocations = as.counts.revocations;
    const removed = await run([], env, '/disconnect tracker\n');
    expect(removed.stdout).toContain('Disconnected tracker: your tokens are revoked and deleted.');
    expect(as.counts.revocations - revocations).toBe(1);
  });

  it('#43.21 stray requests to the loopback before the real redirect are answered 404 and the sign-in still completes', async () => {
    // A browser that asks for a favicon, the bare page, the callback without state and with another
    // flow's state before it follows the real redirect back.
    const browser = resolve(folder, 'stray-browser.mjs');
    const answers = resolve(folder, 'stray-answers.json');
    writeFileSync(
      browser,
      `import { writeFileSync } from 'node:fs';
import { followAuthorization } from ${JSON.stringify(resolve(import.meta.dirname, '../../../packages/test-kit/dist/index.js'))};
const back = await followAuthorization(process.argv.at(-1), { account: 'bob' });
const origin = new URL(back).origin;
const strays = ['/favicon.ico', '/', '/callback', '/callback?code=forged&state=another-flow', '/elsewhere' + new URL(back).search];
const statuses = [];
for (const path of strays) statuses.push([path, (await fetch(origin + path)).status]);
writeFileSync(${JSON.stringify(answers)}, JSON.stringify(statuses));
await fetch(back);
`,
    );
    const result = await run(
      [],
      { ...env, DATA_DIR: resolve(folder, 'stray-data'), BROWSER: `${process.execPath} ${browser}` },
      '/connect tracker\n',
    );
    expect(result.stdout).not.toContain('Not connected');
    expect(result.stdout).toContain('✓ connected: tracker now uses your own account.');
    expect(JSON.parse(readFileSync(answers, 'utf8'))).toEqual([
      ['/favicon.ico', 404],
      ['/', 404],
      ['/callback', 404],
      ['/callback?code=forged&state=another-flow', 404],
      [expect.stringMatching(/^\/elsewhere\?/), 404],
    ]);
  }, 120_000);
});
