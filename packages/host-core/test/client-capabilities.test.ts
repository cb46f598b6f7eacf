import { afterEach, describe, expect, it } from 'vitest';
import { parseMcpConfig, type StdioServerConfig } from '../src/config/mcp-config.js';
import { everythingEntry, managerPool, nodeServer, recordingLogger } from './helpers.js';

// What the host declares at initialize decides which tools a server offers: the reference server
// registers get-roots-list only for a client that declares roots.
describe('client capabilities: roots and logging', () => {
  const pool = managerPool();
  afterEach(() => pool.closeAll());

  it('roots are declared: server-everything offers get-roots-list and reads the configured folders', async () => {
    const [config] = parseMcpConfig(
      JSON.stringify({
        mcpServers: {
          everything: {
            command: process.execPath,
            args: [everythingEntry, 'stdio'],
            roots: ['../docs', 'file:///srv/shared'],
          },
        },
      }),
      '/work/project/config/mcp_servers.json',
      {},
    );
    expect(config?.roots).toEqual([
      { uri: 'file:///work/project/docs', name: 'docs' },
      { uri: 'file:///srv/shared', name: 'shared' },
    ]);
    // The config's folder does not exist here: the server starts in this one.
    const manager = await pool.connect([{ ...(config as StdioServerConfig), cwd: process.cwd() }]);
    // Before: no roots capability, and the tool was never registered.
    expect(manager.listTools().map((tool) => tool.name)).toContain('mcp__everything__get-roots-list');
    const outcome = await manager.callTool('mcp__everything__get-roots-list', {});
    expect(outcome.text).toContain('file:///work/project/docs');
    expect(outcome.text).toContain('file:///srv/shared');
  });

  it('without roots in the config the list is empty, and the server says so', async () => {
    const manager = await pool.connect([nodeServer('everything', everythingEntry, ['stdio'])]);
    const outcome = await manager.callTool('mcp__everything__get-roots-list', {});
    expect(outcome.text).toMatch(/no roots are currently configured/);
  });

  it('a server’s log messages reach the host’s log with its name; log_level is sent with logging/setLevel', async () => {
    const logger = recordingLogger();
    const manager = await pool.connect(
      [nodeServer('everything', everythingEntry, ['stdio'], { logLevel: 'debug', roots: [] })],
      { logger },
    );
    await manager.callTool('mcp__everything__get-roots-list', {});
    const line = await waitForLine(logger, /MCP server log: Roots updated/);
    expect(line).toMatchObject({ fields: { server: 'everything' } });
  });

  it('a roots entry that is not a folder or a file URI of this machine is refused, naming the field', () => {
    expect(() =>
      parseMcpConfig(
        JSON.stringify({ mcpServers: { s: { command: 'x', roots: ['file://elsewhere/x'] } } }),
        'mcp_servers.json',
        {},
      ),
    ).toThrow(/mcpServers\.s\.roots: expected a folder or a file:\/\/ URI of this machine/);
  });

  it('completions: a prompt argument is completed as typed, with earlier arguments as context', async () => {
    const manager = await pool.connect([nodeServer('everything', everythingEntry, ['stdio'])]);
    const complete = (name: string, value: string, context?: Record<string, string>) =>
      manager.completePromptArgument('everything', 'completable-prompt', { name, value }, context);
    expect(await complete('department', 'S')).toEqual(['Sales', 'Support']);
    expect(await complete('name', '', { department: 'Engineering' })).toEqual(['Alice', 'Bob', 'Charlie']);
    // Through one person's view too, and nothing for a server the view cannot reach.
    const view = await manager.forPerson({ workspace: 'T1', user: 'U1', credentials: {} });
    expect(
      await view.completePromptArgument('everything', 'completable-prompt', {
        name: 'department',
        value: 'E',
      }),
    ).toEqual(['Engineering']);
    await expect(view.completePromptArgument('nowhere', 'x', { name: 'a', value: '' })).rejects.toMatchObject(
      {
        code: 'TOOL_NOT_FOUND',
      },
    );
  });
});

async function waitForLine(logger: ReturnType<typeof recordingLogger>, pattern: RegExp) {
  for (let tries = 0; tries < 50; tries += 1) {
    const line = logger.lines.find((entry) => pattern.test(entry.message));
    if (line) return line;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(
    `no log line matched ${pattern}: ${logger.lines.map((entry) => entry.message).join(' | ')}`,
  );
}
