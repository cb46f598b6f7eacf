import { resolve } from 'node:path';
import { childProcesses, startTokenServer, type TokenServer, tokenOf } from '@ai-assistant/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseMcpConfig } from '../src/config/mcp-config.js';
import { ToolCallError } from '../src/errors.js';
import type { Person } from '../src/mcp/person.js';
import { startMcpFromEnvironment } from '../src/mcp/start-mcp.js';
import { echoServer, managerPool, nodeServer, personalEcho, recordingLogger } from './helpers.js';

const pool = managerPool();
afterEach(() => pool.closeAll());

const person = (
  workspace: string,
  user: string,
  credentials: Record<string, string> = {},
  settings?: Map<string, boolean>,
): Person => ({
  workspace,
  user,
  credentials,
  ...(settings ? { settings } : {}),
  connectHint: (server) => `/assistant connect ${server}`,
});

describe('people and their credentials', () => {
  let shared: TokenServer;
  let perUser: TokenServer;
  beforeAll(async () => {
    shared = await startTokenServer();
    perUser = await startTokenServer({ requireToken: true });
  });
  afterAll(() => {
    shared.close();
    perUser.close();
  });

  it('${token} is the asking person’s credential: two people at once each reach the server with their own; one without gets none', async () => {
    const servers = parseMcpConfig(
      JSON.stringify({
        mcpServers: { tickets: { url: shared.url, headers_template: { Authorization: 'Bearer ${token}' } } },
      }),
      'mcp_servers.json',
      {},
    );
    expect(servers[0]?.personalCredential).toBe(true);
    const manager = await pool.connect(servers, { env: {} });
    const alice = await manager.forPerson(person('T1', 'U_ALICE', { tickets: tokenOf('alice') }));
    const bob = await manager.forPerson(person('T1', 'U_BOB', { tickets: tokenOf('bob') }));
    const carol = await manager.forPerson(person('T1', 'U_CAROL', { other: tokenOf('mallory') }));
    shared.calls.length = 0;
    const [forAlice, forBob] = await Promise.all([
      alice.callTool('mcp__tickets__whoami', {}),
      bob.callTool('mcp__tickets__whoami', {}),
    ]);
    expect([forAlice.text, forBob.text]).toEqual(['you are alice', 'you are bob']);
    expect(shared.calls.map((call) => call.owner).sort()).toEqual(['alice', 'bob']);
    // Carol has no credential for tickets: refused before anything is sent, and never another's token,
    // even when the caller passes a `token` of its own.
    await expect(
      carol.callTool('mcp__tickets__whoami', {}, { tokens: { token: tokenOf('bob') } }),
    ).rejects.toMatchObject({ code: 'MISSING_CREDENTIALS' });
    expect(shared.calls).toHaveLength(2);
  });

  it('one person’s secret is hidden in their own turns and the logs, never in another person’s results (hardening 27.4)', async () => {
    const servers = parseMcpConfig(
      JSON.stringify({
        mcpServers: {
          tickets: { url: shared.url, headers: { Authorization: 'Bearer ${token}' } },
          echo: { command: process.execPath, args: [echoServer] },
        },
      }),
      'mcp_servers.json',
      {},
    );
    const logger = recordingLogger();
    const manager = await pool.connect(servers, { env: {}, logger });
    const aliceSecret = tokenOf('alice');
    const alice = await manager.forPerson(person('T1', 'U_ALICE', { tickets: aliceSecret }));
    expect((await alice.callTool('mcp__tickets__whoami', {})).text).toBe('you are alice');
    // Bob, elsewhere, works with text that happens to contain it: before, it read [REDACTED] for him.
    const bob = await manager.forPerson(person('T2', 'U_BOB', {}));
    const forBob = await bob.callTool('mcp__echo__echo', { message: `see ${aliceSecret}` });
    expect(forBob.text).toBe(`echo: see ${aliceSecret}`);
    // In Alice's own turn it stays hidden, and no log line carries it.
    const forAlice = await alice.callTool('mcp__echo__echo', { message: `see ${aliceSecret}` });
    expect(forAlice.text).toBe('echo: see [REDACTED]');
    expect(alice.redact({ note: aliceSecret })).toEqual({ note: '[REDACTED]' });
    manager.redactor.wrap(logger).info({ quoted: aliceSecret }, `a log line quoting ${aliceSecret}`);
    expect(JSON.stringify(logger.lines)).not.toContain(aliceSecret);
  });

  it('a credential the server refuses (expired, revoked): the model is told so and the person is asked to connect again (hardening 27, also)', async () => {
    const servers = parseMcpConfig(
      JSON.stringify({
        mcpServers: { tickets: { url: shared.url, headers: { Authorization: 'Bearer ${token}' } } },
      }),
      'mcp_servers.json',
      {},
    );
    const manager = await pool.connect(servers, { env: {} });
    const expired = tokenOf('erin');
    shared.revoke(expired);
    const erin = await manager.forPerson(person('T1', 'U_ERIN', { tickets: expired }));
    // Before: an McpToolExecutionError "HTTP 401 …" and nothing more.
    const failure = await erin.callTool('mcp__tickets__whoami', {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ToolCallError);
    expect((failure as ToolCallError).code).toBe('MISSING_CREDENTIALS');
    expect((failure as ToolCallError).refused).toBe(401);
    expect((failure as Error).message).not.toContain(expired);
  });

  it('a per-person connection’s token (in its env) is not pinned for everyone (review of 27.4)', async () => {
    const servers = [...personalEcho(), nodeServer('echo', echoServer)];
    const manager = await pool.connect(servers, { env: {} });
    const token = tokenOf('dan');
    const dan = await manager.forPerson(person('T1', 'U_dan', { mine: token }));
    expect((await dan.callTool('mcp__mine__token_owner', {})).text).toBe('owner=dan other=unset');
    // Before: PERSONAL_TOKEN matched *_TOKEN and was pinned, so Bob's result read [REDACTED].
    const bob = await manager.forPerson(person('T2', 'U_bob', {}));
    expect((await bob.callTool('mcp__echo__echo', { message: token })).text).toBe(`echo: ${token}`);
    expect((await dan.callTool('mcp__echo__echo', { message: token })).text).toBe('echo: [REDACTED]');
  });

  it('a credential of workspace A is never used in workspace B', async () => {
    const servers = parseMcpConfig(
      JSON.stringify({
        mcpServers: { tickets: { url: shared.url, headers: { Authorization: 'Bearer ${token}' } } },
      }),
      'mcp_servers.json',
      {},
    );
    const manager = await pool.connect(servers, { env: {} });
    await expect(
      (await manager.forPerson(person('TA', 'U_ALICE', { tickets: tokenOf('alice') }))).callTool(
        'mcp__tickets__whoami',
        {},
      ),
    ).resolves.toMatchObject({ text: 'you are alice' });
    // The same Slack user id in another workspace is another person: the app looks up their (workspace, user).
    const inB = await manager.forPerson(person('TB', 'U_ALICE', {}));
    await expect(inB.callTool('mcp__tickets__whoami', {})).rejects.toThrow(
      /needs credentials that were not supplied: \$\{token\}/,
    );
  });

  it('connection "per_user": one connection per person with their credential, their own tool list; none before they connect', async () => {
    const servers = parseMcpConfig(
      JSON.stringify({
        mcpServers: {
          tickets: {
            url: perUser.url,
            connection: 'per_user',
            headers: { Authorization: 'Bearer ${token}' },
            system_instruction: 'Tickets are in the tickets tool.',
          },
        },
      }),
      'mcp_servers.json',
      {},
    );
    const manager = await pool.connect(servers, { env: {} });
    expect(manager.status()[0]).toMatchObject({ name: 'tickets', state: 'per_user', toolCount: 0 });
    expect(manager.listTools()).toEqual([]);

    const nobody = await manager.forPerson(person('T1', 'U_CAROL'));
    expect(nobody.listTools()).toEqual([]);
    expect(nobody.systemInstructions().join('\n')).toMatch(
      /"tickets" server works with each user's own credential.*after they connect it \(\/assistant connect tickets\)/,
    );
    // A tool of the server they have not connected: what they can fix (the app offers Connect).
    await expect(nobody.callTool('mcp__tickets__whoami', {})).rejects.toMatchObject({
      code: 'MISSING_CREDENTIALS',
      server: 'tickets',
    });
    expect(nobody.unavailableTool?.('mcp__tickets__whoami')).toMatchObject({ code: 'MISSING_CREDENTIALS' });
    expect(nobody.unavailableTool?.('mcp__other__tool')).toBeUndefined();

    const alice = await manager.forPerson(person('T1', 'U_ALICE', { tickets: tokenOf('alice') }));
    const bob = await manager.forPerson(person('T1', 'U_BOB', { tickets: tokenOf('bob') }));
    expect(
      alice
        .listTools()
        .map((tool) => tool.name)
        .sort(),
    ).toEqual(['mcp__tickets__alice_only', 'mcp__tickets__whoami']);
    expect(bob.listTools().map((tool) => tool.name)).toEqual(['mcp__tickets__whoami']);
    expect(alice.systemInstructions()).toEqual(['Tickets are in the tickets tool.']);
    const [a, b] = await Promise.all([
      alice.callTool('mcp__tickets__whoami', {}),
      bob.callTool('mcp__tickets__whoami', {}),
    ]);
    expect([a.text, b.text]).toEqual(['you are alice', 'you are bob']);
    await expect(bob.callTool('mcp__tickets__alice_only', {})).rejects.toMatchObject({
      code: 'TOOL_NOT_FOUND',
    });
    expect(manager.personalConnections()).toBe(2);

    // A new credential replaces the connection; a deleted one closes it.
    const again = await manager.forPerson(person('T1', 'U_ALICE', { tickets: tokenOf('alice') }));
    expect(manager.personalConnections()).toBe(2);
    expect((await again.callTool('mcp__tickets__whoami', {})).text).toBe('you are alice');
    manager.forgetCredential({ workspace: 'T1', user: 'U_BOB' }, 'tickets');
    expect(manager.personalConnections()).toBe(1);
  });

  it('a wrong per-person credential: the person is told their connection failed; others are unaffected', async () => {
    const servers = parseMcpConfig(
      JSON.stringify({
        mcpServers: {
          tickets: {
            url: perUser.url,
            connection: 'per_user',
            headers: { Authorization: 'Bearer ${token}' },
          },
        },
      }),
      'mcp_servers.json',
      {},
    );
    const manager = await pool.connect(servers, { env: {}, connectTimeoutMs: 5000 });
    const wrong = await manager.forPerson(person('T1', 'U_DAVE', { tickets: 'not-a-token-at-all' }));
    expect(wrong.listTools()).toEqual([]);
    const note = wrong.systemInstructions().join('\n');
    expect(note).toMatch(/own connection to the "tickets" server failed/);
    expect(note).not.toContain('not-a-token-at-all');
  });
});

describe('each workspace its own servers', () => {
  it('a tool disabled in one workspace is neither offered nor callable there, even when named; enabled_by_default false waits for an admin', async () => {
    const servers = parseMcpConfig(
      JSON.stringify({
        mcpServers: {
          echo: { command: process.execPath, args: [echoServer], system_instruction: 'Echo is here.' },
          calc: {
            type: 'builtin',
            tools: [{ name: 'calculate' }],
            enabled_by_default: false,
            system_instruction: 'Calc is here.',
          },
        },
      }),
      'mcp_servers.json',
      {},
    );
    const manager = await pool.connect(servers, { env: {} });
    const inA = await manager.forPerson(person('TA', 'U1', {}, new Map()));
    const inB = await manager.forPerson(
      person(
        'TB',
        'U1',
        {},
        new Map([
          ['echo', false],
          ['calc', true],
        ]),
      ),
    );
    const names = (view: typeof inA) => view.listTools().map((tool) => tool.name);
    expect(names(inA)).toContain('mcp__echo__echo');
    expect(names(inA)).not.toContain('mcp__calc__calculate');
    expect(names(inB).some((name) => name.startsWith('mcp__echo__'))).toBe(false);
    expect(names(inB)).toContain('mcp__calc__calculate');
    expect(inA.systemInstructions()).toEqual(['Echo is here.']);
    expect(inB.systemInstructions()).toEqual(['Calc is here.']);
    await expect(inB.callTool('mcp__echo__echo', { message: 'hi' })).rejects.toMatchObject({
      code: 'TOOL_NOT_FOUND',
    });
    expect(inB.resolveTool('mcp__echo__echo')).toBeUndefined();
    await expect(inA.callTool('mcp__calc__calculate', { expression: '1+1' })).rejects.toMatchObject({
      code: 'TOOL_NOT_FOUND',
    });
    expect((await inA.callTool('mcp__echo__echo', { message: 'hi' })).text).toContain('hi');
    expect((await inB.callTool('mcp__calc__calculate', { expression: '1+1' })).text).toContain('2');
  });
});

describe('per-person stdio servers', () => {
  it('a secret holding "$&" or "$$" reaches the server exactly as given', async () => {
    const manager = await pool.connect(personalEcho(), { env: {} });
    const view = await manager.forPerson(person('T1', 'U_odd', { mine: 'tok-a$&b$$c-0123456789' }));
    expect((await view.callTool('mcp__mine__token_owner', {})).text).toBe('owner=a$&b$$c other=unset');
  });

  it('get the secret only in the env entry naming ${token}; the pool reaps children on eviction (LRU) and on close', async () => {
    const servers = personalEcho({ OTHER_SECRET: 'host-secret-should-not-pass' });
    const manager = await pool.connect(servers, {
      env: { OTHER_SECRET: 'host-secret-should-not-pass' },
      personalPool: { max: 2 },
    });
    expect(childProcesses()).toEqual([]);
    const views = await Promise.all(
      ['alice', 'bob'].map((name) => manager.forPerson(person('T1', `U_${name}`, { mine: tokenOf(name) }))),
    );
    expect(childProcesses()).toHaveLength(2);
    expect((await views[0]?.callTool('mcp__mine__token_owner', {}))?.text).toBe('owner=alice other=unset');
    expect((await views[1]?.callTool('mcp__mine__token_owner', {}))?.text).toBe('owner=bob other=unset');
    // A third person: the least recently used connection (alice's) is closed, its process reaped.
    const carol = await manager.forPerson(person('T1', 'U_carol', { mine: tokenOf('carol') }));
    expect((await carol.callTool('mcp__mine__token_owner', {})).text).toBe('owner=carol other=unset');
    await waitFor(() => childProcesses().length === 2);
    expect(manager.personalConnections()).toBe(2);
    await manager.close();
    expect(childProcesses()).toEqual([]);
  });

  it('a full pool never closes a connection with a call in flight: the newcomer is told to try again', async () => {
    const manager = await pool.connect(personalEcho(), { env: {}, personalPool: { max: 1 } });
    const alice = await manager.forPerson(person('T1', 'U_alice', { mine: tokenOf('alice') }));
    const running = alice.callTool('mcp__mine__sleep', { ms: 1000 });
    const carol = await manager.forPerson(person('T1', 'U_carol', { mine: tokenOf('carol') }));
    expect(carol.listTools().map((tool) => tool.name)).not.toContain('mcp__mine__token_owner');
    expect(carol.systemInstructions().join('\n')).toMatch(/1 per-person connections in use; try again/);
    expect((await running).text).toBe('slept 1000');
    // Once alice's call is over, her idle connection makes room.
    const later = await manager.forPerson(person('T1', 'U_carol', { mine: tokenOf('carol') }));
    expect((await later.callTool('mcp__mine__token_owner', {})).text).toBe('owner=carol other=unset');
    await waitFor(() => childProcesses().length === 1);
  });

  it('one workspace cannot take the whole pool: the per-workspace cap closes its own least recently used', async () => {
    const manager = await pool.connect(personalEcho(), {
      env: {},
      personalPool: { max: 10, maxPerWorkspace: 1 },
    });
    const call = async (workspace: string, user: string) =>
      (await manager.forPerson(person(workspace, user, { mine: tokenOf(user) }))).callTool(
        'mcp__mine__token_owner',
        {},
      );
    expect((await call('T1', 'alice')).text).toBe('owner=alice other=unset');
    expect((await call('T2', 'bob')).text).toBe('owner=bob other=unset');
    expect((await call('T1', 'carol')).text).toBe('owner=carol other=unset');
    // T1's alice made room for T1's carol; T2's bob was not touched.
    expect(manager.personalConnections()).toBe(2);
    await waitFor(() => childProcesses().length === 2);
    manager.forgetWorkspace('T2');
    expect(manager.personalConnections()).toBe(1);
    await waitFor(() => childProcesses().length === 1);
  });

  it('a per-person connection unused for the idle timeout is closed and its process reaped, however long it took to open', async () => {
    // The pool's clock is the test's: idleness is decided by it, never by how fast this machine opens a process.
    let clock = Date.parse('2026-11-23T09:00:00Z');
    const servers = personalEcho();
    const manager = await pool.connect(servers, {
      env: {},
      now: () => new Date(clock),
      personalPool: { idleMs: 300 },
    });
    const dan = await manager.forPerson(person('T1', 'U_dan', { mine: tokenOf('dan') }));
    // Not idle yet, even after real time passes: the sweep finds nothing to close.
    await new Promise((resolve) => setTimeout(resolve, 400));
    manager.closeIdleConnections();
    expect((await dan.callTool('mcp__mine__token_owner', {})).text).toBe('owner=dan other=unset');
    expect(childProcesses()).toHaveLength(1);
    clock += 299;
    manager.closeIdleConnections();
    expect(manager.personalConnections()).toBe(1);
    clock += 2;
    manager.closeIdleConnections();
    expect(manager.personalConnections()).toBe(0);
    await waitFor(() => childProcesses().length === 0);
    // The next turn opens it again.
    const later = await manager.forPerson(person('T1', 'U_dan', { mine: tokenOf('dan') }));
    expect((await later.callTool('mcp__mine__token_owner', {})).text).toBe('owner=dan other=unset');
  });

  it('${token} in a stdio env without connection "per_user" is a config error that says why', () => {
    expect(() =>
      parseMcpConfig(
        JSON.stringify({ mcpServers: { mine: { command: 'node', env: { PERSONAL_TOKEN: '${token}' } } } }),
        'config/mcp_servers.json',
        {},
      ),
    ).toThrow(/config\/mcp_servers.json: mcpServers.mine.env: \$\{token\} .* needs "connection": "per_user"/);
    expect(() =>
      parseMcpConfig(
        JSON.stringify({ mcpServers: { mine: { url: 'http://127.0.0.1:1/mcp', connection: 'per_user' } } }),
        'config/mcp_servers.json',
        {},
      ),
    ).toThrow(/mcpServers.mine.connection: "per_user" .* no headers value names \$\{token\}/);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs)
      throw new Error(`condition not met in time (children: ${childProcesses().join(', ')})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the per-person pool’s limits from the environment', () => {
  it('a malformed cap is an EnvironmentError naming the variable, before any server starts', async () => {
    const env = {
      MCP_ENABLED: 'true',
      MCP_SERVERS_CONFIG: resolve(import.meta.dirname, '../../../config/mcp_servers.json'),
      MCP_PERSONAL_CONNECTIONS_PER_WORKSPACE: 'lots',
    };
    await expect(startMcpFromEnvironment({ env })).rejects.toThrow(
      /MCP_PERSONAL_CONNECTIONS_PER_WORKSPACE must be a whole number/,
    );
    expect(childProcesses()).toEqual([]);
  });
});
