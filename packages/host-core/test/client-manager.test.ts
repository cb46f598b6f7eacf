import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FakeJma, startFakeJma } from '@ai-assistant/mcp-server-weather/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadMcpConfig } from '../src/config/mcp-config.js';
import { McpClientManager } from '../src/mcp/client-manager.js';
import { descendantsOf, isAlive } from '../src/mcp/process-tree.js';
import { startMcpFromEnvironment } from '../src/mcp/start-mcp.js';
import {
  eventually,
  everythingEntry,
  fixtures,
  listenOnLoopback,
  nodeServer,
  recordingLogger,
  remoteServer,
  startEverything,
  weatherServer,
} from './helpers.js';

const echo = join(fixtures, 'echo-server.mjs');
const managers: McpClientManager[] = [];

function manager(options: ConstructorParameters<typeof McpClientManager>[0] = {}) {
  const created = new McpClientManager(options);
  managers.push(created);
  return created;
}

/**
 * The worker's processes when a test began: the worker is shared with other test files, and a process
 * of theirs that is still ending is not this test's. Whatever the test itself started must be gone.
 */
let before = new Set<number>();
beforeEach(async () => {
  before = new Set(await descendantsOf(process.pid));
});

/** This test's own processes still alive. */
const startedHere = async () => (await descendantsOf(process.pid)).filter((pid) => !before.has(pid));

afterEach(async () => {
  await Promise.all(managers.splice(0).map((each) => each.close()));
  // Nothing a test started may outlive it.
  expect(await startedHere()).toEqual([]);
});

describe('with the real weather server', () => {
  let jma: FakeJma;
  beforeAll(async () => {
    jma = await startFakeJma();
  });
  afterAll(() => jma?.close());
  const weather = () => weatherServer(jma.baseUrl);

  it('ac4 connects to a configured server and lists its tools as ToolDefinitions', async () => {
    const mcp = manager();
    await mcp.connect([weather()]);
    const tool = mcp.listTools().find((candidate) => candidate.name === 'mcp__weather__get_weather');
    expect(tool?.description).toContain('気象庁');
    expect(tool?.inputSchema).toMatchObject({ type: 'object', required: ['location'] });
    expect(mcp.status()).toEqual([
      {
        name: 'weather',
        transport: 'stdio',
        state: 'connected',
        toolCount: 1,
        // Our weather server speaks both eras: the host finds the newer one.
        protocolVersion: '2026-07-28',
        approval: 'writes',
        personalCredential: false,
        enabledByDefault: true,
      },
    ]);
  });

  it('ac5 calls a tool and returns its result as text', async () => {
    const mcp = manager();
    await mcp.connect([weather()]);
    const outcome = await mcp.callTool('mcp__weather__get_weather', { location: '東京' });
    expect(outcome.isError).toBe(false);
    expect(outcome.text).toContain('東京都 東京地方の天気予報です');
    expect(outcome).toMatchObject({ server: 'weather', tool: 'get_weather' });
  });

  it('ac6 uses several servers at once, each callable', async () => {
    const mcp = manager();
    await mcp.connect([
      weather(),
      nodeServer('everything', everythingEntry, ['stdio']),
      nodeServer('echo', echo),
    ]);
    expect(mcp.status().map((server) => server.state)).toEqual(['connected', 'connected', 'connected']);
    const names = mcp.listTools().map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining(['mcp__weather__get_weather', 'mcp__everything__echo', 'mcp__echo__echo']),
    );
    const [weatherText, everythingEcho, ourEcho] = await Promise.all([
      mcp.callTool('mcp__weather__get_weather', { location: '大阪', date: 'week' }),
      mcp.callTool('mcp__everything__echo', { message: 'hi' }),
      mcp.callTool('mcp__echo__echo', { message: 'hi' }),
    ]);
    expect(weatherText.text).toContain('大阪府');
    expect(everythingEcho.text).toContain('hi');
    expect(ourEcho.text).toBe('echo: hi');
  });
});

describe('what servers tell the model about themselves (issue 26: instructions)', () => {
  it('the instructions a server gives at initialize follow its system_instruction; server_instructions: false leaves them out', async () => {
    const mcp = manager();
    await mcp.connect([
      nodeServer('everything', everythingEntry, ['stdio']),
      nodeServer('told', echo, ['--instructions', 'Call echo with the exact words to repeat.'], {
        systemInstruction: 'Echo is here.',
      }),
      nodeServer('quiet', echo, ['--name', 'quiet', '--instructions', 'Never shown.'], {
        serverInstructions: false,
      }),
    ]);
    const instructions = mcp.systemInstructions();
    // Before: only the configured line; what the servers said was dropped.
    expect(instructions).toContain('Echo is here.');
    expect(instructions.indexOf('Call echo with the exact words to repeat.')).toBe(
      instructions.indexOf('Echo is here.') + 1,
    );
    expect(instructions.some((text) => /everything/i.test(text))).toBe(true);
    expect(instructions).not.toContain('Never shown.');
  });

  it('a server that failed at start-up is named unavailable, and its system_instruction is left out', async () => {
    const mcp = manager();
    await mcp.connect([
      nodeServer('echo', echo),
      nodeServer('broken', echo, ['--crash-on-start'], {
        systemInstruction: 'Use mcp__broken__echo for everything.',
      }),
    ]);
    // Before: the prompt told the model to use a tool that does not exist, and named nothing unavailable.
    expect(mcp.systemInstructions()).not.toContain('Use mcp__broken__echo for everything.');
    expect(mcp.unavailableServers()).toEqual([{ server: 'broken', restarting: true }]);
  });
});

describe('McpClientManager against real processes', () => {
  // A server that fails is retried under the default policy (restart: "on-failure"): it shows as restarting.
  it('ac7 skips a server that fails to start, logs why, and keeps the others working', async () => {
    const logger = recordingLogger();
    // The restart policy is pinned: no retry comes within the test, however slow the machine, so each
    // failed server is logged once.
    const mcp = manager({
      logger,
      connectTimeoutMs: 3000,
      restartPolicy: { initialDelayMs: 600_000, maxDelayMs: 600_000, jitter: 0 },
    });
    await mcp.connect([
      nodeServer('crashes', echo, ['--crash-on-start']),
      nodeServer('missing', '/nonexistent/server.js'),
      { ...nodeServer('no-such-command', echo), command: 'definitely-not-a-command-xyz' },
      nodeServer('echo', echo),
    ]);
    const status = Object.fromEntries(mcp.status().map((server) => [server.name, server]));
    expect(status.crashes?.state).toBe('restarting');
    expect(status.crashes?.reason).toContain('cannot read settings.toml');
    expect(status.missing?.state).toBe('restarting');
    expect(status['no-such-command']?.state).toBe('restarting');
    expect(status.echo?.state).toBe('connected');
    const failures = logger.lines.filter((line) => line.level === 'error').map((line) => line.fields.server);
    expect(failures.sort()).toEqual(['crashes', 'missing', 'no-such-command']);
    expect((await mcp.callTool('mcp__echo__echo', { message: 'still here' })).text).toBe('echo: still here');
  });

  it('a server that never answers initialize, or only writes garbage, is skipped after the connect timeout', async () => {
    const mcp = manager({ connectTimeoutMs: 300 });
    await mcp.connect([
      nodeServer('slow', echo, ['--start-delay', '60000']),
      nodeServer('garbage-only', echo, ['--only-garbage']),
    ]);
    // Tried under 300, 600, 1200 and 1800 ms (the limit doubles, up to six times the first).
    expect(mcp.status().map((server) => [server.name, server.state, server.reason])).toEqual([
      ['slow', 'restarting', expect.stringContaining('within 1800 ms')],
      ['garbage-only', 'restarting', expect.stringContaining('within 1800 ms')],
    ]);
  });

  it('a slow starter within the timeout connects; garbage lines before the protocol are tolerated', async () => {
    const mcp = manager({ connectTimeoutMs: 8000 });
    await mcp.connect([
      nodeServer('slow', echo, ['--start-delay', '500']),
      nodeServer('noisy', echo, ['--garbage']),
    ]);
    expect(mcp.status().map((server) => server.state)).toEqual(['connected', 'connected']);
    expect((await mcp.callTool('mcp__noisy__echo', { message: 'x' })).text).toBe('echo: x');
  });

  it('a server that crashes during a call: the call fails with the server named, later calls fail at once', async () => {
    const mcp = manager({ restartPolicy: { initialDelayMs: 60_000 } });
    await mcp.connect([nodeServer('fragile', echo), nodeServer('echo', echo)]);
    const crash = mcp.callTool('mcp__fragile__crash', {});
    await expect(crash).rejects.toMatchObject({ code: 'TOOL_EXECUTION_FAILED' });
    await expect(crash).rejects.toThrow(/fragile/);
    expect(await eventually(() => mcp.status()[0]?.state === 'restarting')).toBe(true);
    // Its tools stay listed; a call says why it cannot run instead of "no tool named …".
    expect(mcp.listTools().map((tool) => tool.name)).toContain('mcp__fragile__echo');
    await expect(mcp.callTool('mcp__fragile__echo', { message: 'x' })).rejects.toThrow(
      /fragile.*the server is restarting.*segfault simulated/,
    );
    expect((await mcp.callTool('mcp__echo__echo', { message: 'ok' })).text).toBe('echo: ok');
  });

  it('a call that never answers times out, is cancelled, and the server keeps serving', async () => {
    const mcp = manager();
    await mcp.connect([nodeServer('echo', echo)]);
    const hanging = mcp.callTool('mcp__echo__never', {}, { timeoutMs: 300 });
    await expect(hanging).rejects.toMatchObject({ code: 'REQUEST_TIMEOUT' });
    await expect(hanging).rejects.toThrow(/300 ms/);
    expect((await mcp.callTool('mcp__echo__echo', { message: 'after' })).text).toBe('echo: after');
  });

  it('an aborted signal cancels the call', async () => {
    const mcp = manager();
    await mcp.connect([nodeServer('echo', echo)]);
    const controller = new AbortController();
    const call = mcp.callTool('mcp__echo__never', {}, { signal: controller.signal });
    controller.abort();
    await expect(call).rejects.toThrow(/cancelled/);
  });

  it('keeps isError, turns thrown errors into isError results, and cuts big output keeping head and tail', async () => {
    const mcp = manager({ resultBudget: 2000 });
    await mcp.connect([nodeServer('echo', echo)]);
    expect(await mcp.callTool('mcp__echo__fail', {})).toMatchObject({
      isError: true,
      text: 'the database is locked',
    });
    const thrown = await mcp.callTool('mcp__echo__throws', {});
    expect(thrown.isError).toBe(true);
    expect(thrown.text).toContain('unexpected token in settings');
    const big = await mcp.callTool('mcp__echo__big', {});
    expect(big.text.length).toBeLessThanOrEqual(2000);
    expect(big.text.startsWith('HEAD')).toBe(true);
    expect(big.text.endsWith('TAIL')).toBe(true);
    expect(big.text).toMatch(/characters cut of 100008/);
  });

  it('two servers with the same tool name stay callable; allowed_tools hides the rest; long names are made valid', async () => {
    const mcp = manager();
    await mcp.connect([
      nodeServer('first', echo),
      nodeServer('second', echo, [], { allowedTools: ['echo'] }),
    ]);
    const names = mcp.listTools().map((tool) => tool.name);
    expect(names.filter((name) => name.startsWith('mcp__second__'))).toEqual(['mcp__second__echo']);
    expect((await mcp.callTool('mcp__first__echo', { message: '1' })).text).toBe('echo: 1');
    expect((await mcp.callTool('mcp__second__echo', { message: '2' })).text).toBe('echo: 2');
    await expect(mcp.callTool('mcp__second__fail', {})).rejects.toMatchObject({ code: 'TOOL_NOT_FOUND' });
    const long = names.find((name) => name.includes('a_tool_with_a_very_long_name'));
    expect(long).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect((await mcp.callTool(long as string, {})).text).toBe('long name works');
    expect(mcp.resolveTool(long as string)?.tool).toBe(
      'a_tool_with_a_very_long_name_that_goes_on_and_on_past_the_provider_limit',
    );
  });

  it('refreshes tools when a server sends tools/list_changed', async () => {
    const mcp = manager();
    await mcp.connect([nodeServer('echo', echo)]);
    expect(mcp.listTools().some((tool) => tool.name === 'mcp__echo__added')).toBe(false);
    await mcp.callTool('mcp__echo__add_tool', {});
    expect(await eventually(() => mcp.listTools().some((tool) => tool.name === 'mcp__echo__added'))).toBe(
      true,
    );
    expect((await mcp.callTool('mcp__echo__added', {})).text).toBe('added works');
  });

  it('stdio children get a minimal environment plus the configured env, never the host secrets', async () => {
    const secrets = {
      SLACK_BOT_TOKEN: 'xoxb-secret-1',
      OPENAI_API_KEY: 'sk-secret-2',
      ANTHROPIC_API_KEY: 'sk-ant-secret-3',
    };
    Object.assign(process.env, secrets);
    try {
      const mcp = manager();
      await mcp.connect([
        nodeServer('everything', everythingEntry, ['stdio'], { env: { PASSED_ON: 'on purpose' } }),
      ]);
      const { text } = await mcp.callTool('mcp__everything__get-env', {});
      const childEnv = JSON.parse(text) as Record<string, string>;
      expect(childEnv.PASSED_ON).toBe('on purpose');
      expect(childEnv.PATH).toBeTruthy();
      for (const [name, value] of Object.entries(secrets)) {
        expect(childEnv[name]).toBeUndefined();
        expect(text).not.toContain(value);
      }
    } finally {
      for (const name of Object.keys(secrets)) delete process.env[name];
    }
  });

  it('close() ends a wrapper and the grandchild it spawned, even when both ignore SIGTERM; twice is safe', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'wrapper-'));
    const pidFile = join(folder, 'pids.json');
    try {
      const mcp = manager();
      await mcp.connect([nodeServer('wrapped', join(fixtures, 'wrapper.mjs'), [pidFile])]);
      expect((await mcp.callTool('mcp__wrapped__echo', { message: 'deep' })).text).toBe(
        'stubborn echo: deep',
      );
      const pids = JSON.parse(readFileSync(pidFile, 'utf8')) as { wrapper: number; server: number };
      expect([isAlive(pids.wrapper), isAlive(pids.server)]).toEqual([true, true]);
      await mcp.close();
      await mcp.close();
      expect([isAlive(pids.wrapper), isAlive(pids.server)]).toEqual([false, false]);
      expect(mcp.status()[0]?.state).toBe('closed');
    } finally {
      rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
    }
  });
});

describe('server-everything over Streamable HTTP and SSE', () => {
  for (const mode of ['streamableHttp', 'sse'] as const) {
    it(`${mode}: lists tools, calls echo and get-sum, describes images, reads structured content`, async () => {
      const everything = await startEverything(mode);
      try {
        const mcp = manager();
        await mcp.connect([remoteServer('everything', mode === 'sse' ? 'sse' : 'http', everything.url)]);
        expect(mcp.status()[0]?.state).toBe('connected');
        expect((await mcp.callTool('mcp__everything__echo', { message: 'over the wire' })).text).toContain(
          'over the wire',
        );
        expect((await mcp.callTool('mcp__everything__get-sum', { a: 2, b: 40 })).text).toContain('42');
        const image = await mcp.callTool('mcp__everything__get-tiny-image', {});
        expect(image.text).toMatch(/\[image: image\/png, \d+ bytes\]/);
        const structured = await mcp.callTool('mcp__everything__get-structured-content', {
          location: 'Chicago',
        });
        expect(structured.text).toContain('temperature');
      } finally {
        everything.child.kill('SIGKILL');
        await new Promise((resolve) => everything.child.once('exit', resolve));
      }
    }, 30_000);
  }

  it('an HTTP server answering 404 or 401 is skipped with the status in the reason', async () => {
    const server: Server = createServer((request, response) => {
      response.writeHead(request.url?.startsWith('/private') ? 401 : 404, { 'content-type': 'text/plain' });
      response.end('no');
    });
    const base = await listenOnLoopback(server);
    try {
      const mcp = manager({ connectTimeoutMs: 3000 });
      await mcp.connect([
        remoteServer('missing', 'http', `${base}/mcp`),
        remoteServer('private', 'http', `${base}/private/mcp`, {
          headers: { Authorization: 'Bearer nope' },
        }),
      ]);
      const [missing, secret] = mcp.status();
      expect(missing).toMatchObject({ state: 'restarting', reason: expect.stringContaining('404') });
      expect(secret).toMatchObject({
        state: 'restarting',
        reason: expect.stringMatching(/401|Unauthorized/),
      });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('configuration lifecycle', () => {
  it('ac16 config changes are picked up on restart', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'config-'));
    const path = join(folder, 'mcp_servers.json');
    const config = (servers: Record<string, unknown>) =>
      writeFileSync(path, JSON.stringify({ mcpServers: servers }));
    try {
      config({ alpha: { command: process.execPath, args: [echo] } });
      const first = manager();
      await first.connect((await loadMcpConfig(path)) ?? []);
      expect(first.listTools().some((tool) => tool.name === 'mcp__alpha__echo')).toBe(true);
      await first.close();

      config({ beta: { command: process.execPath, args: [echo], allowed_tools: ['echo'] } });
      const second = manager();
      await second.connect((await loadMcpConfig(path)) ?? []);
      expect(second.listTools().map((tool) => tool.name)).toEqual(['mcp__beta__echo']);
    } finally {
      rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
    }
  });

  it('ac17 MCP_ENABLED controls whether servers are started at all', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'enabled-'));
    const path = join(folder, 'servers.json');
    writeFileSync(
      path,
      JSON.stringify({ mcpServers: { echo: { command: process.execPath, args: [echo] } } }),
    );
    try {
      for (const value of [undefined, '', 'false', '0', 'no']) {
        const logger = recordingLogger();
        const off = await startMcpFromEnvironment({
          env: { MCP_ENABLED: value, MCP_SERVERS_CONFIG: path },
          logger,
        });
        expect(off).toBeUndefined();
        expect(logger.lines[0]?.message).toContain('MCP is off');
      }
      expect(await startedHere()).toEqual([]);
      for (const value of ['true', '1', 'yes', 'TRUE']) {
        const on = await startMcpFromEnvironment({ env: { MCP_ENABLED: value, MCP_SERVERS_CONFIG: path } });
        if (on) managers.push(on);
        expect(on?.listTools().map((tool) => tool.name)).toContain('mcp__echo__echo');
      }
      const logger = recordingLogger();
      const missing = await startMcpFromEnvironment({
        env: { MCP_ENABLED: 'true', MCP_SERVERS_CONFIG: join(folder, 'absent.json') },
        logger,
      });
      expect(missing).toBeUndefined();
      expect(logger.lines.map((line) => line.message)).toEqual([
        expect.stringContaining('no server config file'),
      ]);
    } finally {
      rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
    }
  });
});
