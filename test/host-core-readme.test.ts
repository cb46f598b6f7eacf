import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// host-core's README carries a complete small host (its config and its program). This test runs the
// README's own text: the marked code blocks are written to a folder where `@ai-assistant/host-core` and
// `@ai-assistant/llm-providers` are installed (linked to their built packages), and the program runs
// as a reader would run it, against real parts: oidc-provider as the authorization server, a protected
// MCP server (the SDK's, Streamable HTTP), server-everything over stdio, and a loopback vendor API whose
// model is scripted below. This test is the person: it answers the program's questions on stdin and
// signs in as a browser would, from the link the program prints.
const repoRoot = resolve(import.meta.dirname, '..');
const readme = readFileSync(join(repoRoot, 'packages', 'host-core', 'README.md'), 'utf8');

/** The fenced code block after `<!-- example: <name> -->`. */
function example(name: string): string {
  const marker = `<!-- example: ${name} -->`;
  const at = readme.indexOf(marker);
  if (at < 0) throw new Error(`host-core's README has no block marked ${marker}`);
  const block = /```[a-z]*\n([\s\S]*?)\n```/.exec(readme.slice(at));
  if (!block?.[1]) throw new Error(`no fenced code block follows ${marker}`);
  return block[1];
}

interface FakeRequest {
  body: Record<string, unknown>;
}
interface TestKit {
  startAuthorizationServer(options: { accessTokenTtlSeconds?: number }): Promise<{
    issuer: string;
    resources: string[];
    close(): Promise<void>;
  }>;
  startProtectedServer(
    issuer: string,
    url?: string,
    options?: { challengeScope?: string; toolScopes?: Record<string, string> },
  ): Promise<{ url: string; seen: Array<{ sub: string; tool?: string }>; close(): Promise<void> }>;
  startFakeVendor(): Promise<{
    baseURL: string;
    respondWith(handler: (request: FakeRequest) => unknown): void;
    close(): Promise<void>;
  }>;
  completion(
    request: FakeRequest,
    reply: { text?: string; toolCall?: { name: string; arguments: unknown } },
  ): unknown;
  followAuthorization(url: string, options?: { account?: string }): Promise<string>;
  freePort(): Promise<number>;
}

/**
 * The model: it calls the tool each question of the README's program is about, answers a tool's result
 * with it, and gives the server's sampling request a completion.
 */
function scriptedModel(kit: TestKit) {
  return (request: FakeRequest) => {
    const messages = (request.body.messages ?? []) as Array<{ role: string; content: unknown }>;
    const text = (message: { content: unknown } | undefined) =>
      typeof message?.content === 'string' ? message.content : JSON.stringify(message?.content ?? '');
    const last = messages.at(-1);
    if (last?.role === 'tool') return kit.completion(request, { text: `The tool said: ${text(last)}` });
    if (!request.body.tools) return kit.completion(request, { text: 'Servers talk, tools answer' });
    const question = text(messages.findLast((message) => message.role === 'user'));
    const tool = /who am i/i.test(question)
      ? 'mcp__tracker__whoami'
      : /note/i.test(question)
        ? 'mcp__tracker__write'
        : /form/i.test(question)
          ? 'mcp__everything__trigger-elicitation-request'
          : undefined;
    return tool
      ? kit.completion(request, { toolCall: { name: tool, arguments: {} } })
      : kit.completion(request, { text: `no tool for: ${question}` });
  };
}

describe("host-core's README", () => {
  let kit: TestKit;
  let as: Awaited<ReturnType<TestKit['startAuthorizationServer']>>;
  let tracker: Awaited<ReturnType<TestKit['startProtectedServer']>>;
  let llm: Awaited<ReturnType<TestKit['startFakeVendor']>>;
  let folder: string;

  beforeAll(async () => {
    // The test kit is built before the repository's checks run; imported by path, it needs no dependency here.
    kit = (await import(join(repoRoot, 'packages', 'test-kit', 'dist', 'index.js'))) as TestKit;
    as = await kit.startAuthorizationServer({ accessTokenTtlSeconds: 600 });
    // People sign in with mcp:read; the tool `write` needs mcp:write (a 403 insufficient_scope).
    tracker = await kit.startProtectedServer(as.issuer, undefined, {
      challengeScope: 'mcp:read',
      toolScopes: { write: 'mcp:write' },
    });
    as.resources.push(tracker.url);
    llm = await kit.startFakeVendor();
    llm.respondWith(scriptedModel(kit));
    folder = mkdtempSync(join(tmpdir(), 'host-core-readme-'));
  }, 60_000);

  afterAll(async () => {
    await Promise.all([tracker?.close(), as?.close(), llm?.close()]);
    if (folder) rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
  });

  it("#48 the small host of host-core's README runs as written: config, a person's view with their sign-ins, turns, OAuth with step-up, a form, sampling, progress", async () => {
    // The README's two files, in a folder where the two packages are installed (as links to them).
    writeFileSync(join(folder, 'mcp_servers.json'), example('small-host config'));
    writeFileSync(join(folder, 'small-host.mjs'), example('small-host'));
    mkdirSync(join(folder, 'node_modules', '@ai-assistant'), { recursive: true });
    for (const name of ['host-core', 'llm-providers'])
      symlinkSync(
        join(repoRoot, 'packages', name),
        join(folder, 'node_modules', '@ai-assistant', name),
        'dir',
      );
    const hostCore = createRequire(join(repoRoot, 'packages', 'host-core', 'package.json'));
    const everything = join(
      dirname(hostCore.resolve('@modelcontextprotocol/server-everything/package.json')),
      'dist',
      'index.js',
    );

    const child = spawn(process.execPath, ['small-host.mjs'], {
      cwd: folder,
      env: {
        PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
        HOME: process.env.HOME ?? '',
        // What the README says to set.
        MCP_ENABLED: 'true',
        MCP_SERVERS_CONFIG: 'mcp_servers.json',
        EVERYTHING_SERVER: everything,
        TRACKER_URL: tracker.url,
        OPENAI_API_KEY: 'sk-readme-example',
        OPENAI_BASE_URL: llm.baseURL,
        CALLBACK_PORT: String(await kit.freePort()),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    const browser: Array<Promise<unknown>> = [];
    const done = { links: 0, approvals: 0, forms: 0 };
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    // The person: signs in from each link, answers each question once it is asked (whole ones only: a
    // chunk may end in the middle of a line).
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const links = [...output.matchAll(/Sign in to \w+: (\S+)\n/g)].map((match) => match[1] as string);
      for (const url of links.slice(done.links))
        browser.push(
          kit
            .followAuthorization(url, { account: 'alice' })
            .then((back) => fetch(back))
            .then((response) => response.text()),
        );
      done.links = links.length;
      const approvals = output.split('(y/n) ').length - 1;
      for (; done.approvals < approvals; done.approvals++) child.stdin.write('y\n');
      const forms = output.split('(empty: decline) ').length - 1;
      for (; done.forms < forms; done.forms++)
        child.stdin.write('{"name": "Alice Example", "check": true}\n');
    });
    const code = await new Promise<number | null>((done) => child.on('close', done));
    await Promise.all(browser);

    expect(output).toMatch(/everything: connected, \d+ tools/);
    expect(output).toContain('tracker: per_user, 0 tools, each person signs in');
    // Not connected yet: credential_needed, Connect, the question again.
    expect(output).toContain('tracker needs you to sign in');
    expect(output).toContain('The tool said: you are alice');
    // Step-up: a 403 insufficient_scope arrives as credential_needed with refused and the scope.
    expect(output).toContain('tracker needs more access: mcp:write');
    expect(output).toContain('The tool said: write done for alice');
    expect(tracker.seen).toEqual([
      { sub: 'alice', tool: 'whoami' },
      { sub: 'alice', tool: 'write' },
    ]);
    // The form reached the server through the turn's elicit.
    expect(output).toContain('- Name: Alice Example');
    // callTool's onProgress and sample.
    expect(output).toContain('progress 2/2');
    expect(output).toContain('Servers talk, tools answer');
    expect(output).toContain('closed');
    expect(code, output).toBe(0);
  }, 180_000);
});

describe("host-core's README, point by point", () => {
  it('#48 the McpClientManager snippet lists every ServerState; the README test is named at the repository root', () => {
    const types = readFileSync(join(repoRoot, 'packages/host-core/src/mcp/manager-types.ts'), 'utf8');
    const union = /export type ServerState =([^;]+);/.exec(types)?.[1] ?? '';
    const states = [...union.matchAll(/'([a-z_]+)'/g)].map((match) => match[1]);
    expect(states.length).toBeGreaterThan(5);
    const listed = /state: ([a-z_|]+)/.exec(readme)?.[1]?.split('|') ?? [];
    expect(states.filter((state) => !listed.includes(state as string))).toEqual([]);
    expect(readme).toContain('`test/host-core-readme.test.ts` at the repository root');
  });
});
