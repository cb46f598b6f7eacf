import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isMcpEnabled, loadMcpConfig, McpConfigError, mcpConfigPath, parseMcpConfig } from './mcp-config.js';

const file = 'config/mcp_servers.json';
const parse = (servers: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) =>
  parseMcpConfig(JSON.stringify({ mcpServers: servers }), file, env);
const failure = (servers: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) => {
  try {
    parse(servers, env);
  } catch (error) {
    expect(error).toBeInstanceOf(McpConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a config error');
};

describe('MCP server configuration', () => {
  it('accepts Claude Desktop entries and infers the transport', () => {
    const [stdio, http] = parse({
      weather: { command: 'node', args: ['server.js'] },
      remote: { url: 'https://example.test/mcp' },
    });
    expect(stdio).toMatchObject({
      name: 'weather',
      transport: 'stdio',
      command: 'node',
      args: ['server.js'],
      timeoutMs: 30000,
    });
    expect(stdio?.transport === 'stdio' && stdio.cwd).toBe(resolve('config'));
    expect(http).toMatchObject({
      name: 'remote',
      transport: 'http',
      url: 'https://example.test/mcp',
      headers: {},
    });
  });

  it('reads our fields and the type/transport aliases', () => {
    const [server, sse] = parse({
      kb: {
        type: 'streamable-http',
        url: 'http://127.0.0.1:1/mcp',
        allowed_tools: ['search'],
        timeout_ms: 500,
        system_instruction: 'S',
        response_instruction: 'R',
        auto_context_tool: 'search',
        disabled: true,
      },
      legacy: { transport: 'sse', url: 'http://127.0.0.1:2/sse' },
    });
    expect(server).toMatchObject({
      transport: 'http',
      allowedTools: ['search'],
      timeoutMs: 500,
      systemInstruction: 'S',
      responseInstruction: 'R',
      autoContextTool: 'search',
      disabled: true,
    });
    expect(sse?.transport).toBe('sse');
  });

  it('names the file, the server, the field and the expected shape', () => {
    expect(failure({ weather: { command: 'node', args: 'server.js' } })).toBe(
      'config/mcp_servers.json: mcpServers.weather.args: expected an array of strings',
    );
    expect(failure({ weather: { command: 'node', env: { PORT: 3000 } } })).toBe(
      'config/mcp_servers.json: mcpServers.weather.env.PORT: expected an object whose values are strings',
    );
    expect(failure({ weather: { command: 'node', timeout_ms: -1 } })).toContain(
      'timeout_ms: expected a positive whole number',
    );
    expect(failure({ weather: {} })).toContain('mcpServers.weather: expected "command"');
    expect(failure({ weather: { transport: 'carrier-pigeon', command: 'x' } })).toContain(
      'weather.transport: expected one of',
    );
    expect(failure({ weather: 'node server.js' })).toContain('mcpServers.weather: expected an object');
    expect(failure({ 'bad name!': { command: 'x' } })).toContain('server names may use');
    expect(() => parseMcpConfig('{"mcpServers": [', file)).toThrow(
      /config\/mcp_servers.json: is not valid JSON/,
    );
    expect(() => parseMcpConfig('{"servers": {}}', file)).toThrow(/mcpServers: expected an object/);
  });

  it('rejects builtin and openapi servers as not supported yet instead of dropping them', () => {
    expect(failure({ tools: { type: 'builtin', tools: [] } })).toContain(
      '"builtin" servers are not supported yet',
    );
    expect(failure({ api: { transport: 'openapi' } })).toContain('"openapi" servers are not supported yet');
  });

  it('expands ${VAR} in env, url and headers; an unset variable is named, its value never shown', () => {
    const env = { TOKEN: 'secret-value-123', HOST: '127.0.0.1' };
    const [stdio, remote] = parse(
      {
        a: { command: 'x', env: { API_TOKEN: '${TOKEN}' } },
        b: { url: 'http://${HOST}:9/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
      },
      env,
    );
    expect(stdio?.transport === 'stdio' && stdio.env).toEqual({ API_TOKEN: 'secret-value-123' });
    expect(remote).toMatchObject({
      url: 'http://127.0.0.1:9/mcp',
      headers: { Authorization: 'Bearer secret-value-123' },
    });
    const message = failure(
      { b: { url: 'http://x/mcp', headers: { Authorization: 'Bearer ${MISSING}' } } },
      env,
    );
    expect(message).toContain('mcpServers.b.headers.Authorization: ${MISSING} is not set');
    // A disabled entry does not need its variables.
    expect(parse({ c: { command: 'x', env: { K: '${MISSING}' }, disabled: true } })[0]?.disabled).toBe(true);
  });

  it('never puts a value in an error message', () => {
    const message = failure({ s: { url: 'not a url with sk-secret-999' } });
    expect(message).toContain('mcpServers.s.url: expected a non-empty string (an http:// or https:// URL)');
    expect(message).not.toContain('sk-secret-999');
  });

  it('treats a missing file as MCP off and resolves the path from MCP_SERVERS_CONFIG', async () => {
    expect(await loadMcpConfig('/nonexistent/mcp_servers.json')).toBeUndefined();
    expect(mcpConfigPath({}, '/app')).toBe('/app/config/mcp_servers.json');
    expect(mcpConfigPath({ MCP_SERVERS_CONFIG: '/etc/servers.json' }, '/app')).toBe('/etc/servers.json');
  });

  it('MCP_ENABLED accepts true, 1 and yes', () => {
    expect(
      ['true', '1', 'yes', 'YES', ' true '].map((value) => isMcpEnabled({ MCP_ENABLED: value })),
    ).toEqual([true, true, true, true, true]);
    expect([undefined, '', 'false', '0', 'on'].map((value) => isMcpEnabled({ MCP_ENABLED: value }))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('the shipped config/mcp_servers.json is valid', async () => {
    const servers = await loadMcpConfig(
      resolve(import.meta.dirname, '../../../../config/mcp_servers.json'),
      {},
    );
    expect(servers?.map((server) => server.name)).toContain('weather');
  });
});
