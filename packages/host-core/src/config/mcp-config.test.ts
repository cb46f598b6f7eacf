import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fillHeaders } from '../mcp/header-templates.js';
import {
  isMcpEnabled,
  loadMcpConfig,
  McpConfigError,
  mcpConfigLabel,
  mcpConfigPath,
  parseMcpConfig,
} from './mcp-config.js';

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
      /config\/mcp_servers.json:1:17: not valid JSON/,
    );
    expect(() => parseMcpConfig('{"servers": {}}', file)).toThrow(/mcpServers: expected an object/);
  });

  it('#45 protocol_version: "auto" is the default, a revision pins it, anything else names the field and the choices', () => {
    const entries = (value: unknown) =>
      parseMcpConfig(
        JSON.stringify({ mcpServers: { weather: { command: 'node', protocol_version: value } } }),
        file,
        {},
      );
    expect(entries('auto')[0]).not.toHaveProperty('protocolVersion');
    expect(entries('2026-07-28')[0]).toMatchObject({ protocolVersion: '2026-07-28' });
    expect(entries('2025-11-25')[0]).toMatchObject({ protocolVersion: '2025-11-25' });
    expect(failure({ weather: { command: 'node', protocol_version: '2024-11-05' } })).toContain(
      'mcpServers.weather.protocol_version: expected "auto" (the default',
    );
    expect(failure({ weather: { command: 'node', protocolVersion: 'nope' } })).toContain('protocol_version');
  });

  it('#42 start: "on_first_use" is for a shared stdio server, idle_stop_ms only with it; errors name file, field and fix', () => {
    const [lazy, eager] = parse({
      lazy: { command: 'node', args: ['s.js'], start: 'on_first_use' },
      eager: { command: 'node', idleStopMs: 5000, start: 'on_first_use' },
    });
    expect(lazy).toMatchObject({ start: 'on_first_use', idleStopMs: 600_000 });
    expect(eager).toMatchObject({ start: 'on_first_use', idleStopMs: 5000 });
    expect(parse({ plain: { command: 'node' } })[0]).not.toHaveProperty('start');
    expect(failure({ remote: { url: 'https://example.test/mcp', start: 'on_first_use' } })).toBe(
      `${file}: mcpServers.remote.start: "on_first_use" is for stdio servers (a process the host starts); a http server costs no process while unused: remove "start"`,
    );
    expect(
      failure({
        mine: { command: 'node', env: { T: '${token}' }, connection: 'per_user', start: 'on_first_use' },
      }),
    ).toContain('mcpServers.mine.start: a "per_user" server already starts on each person\'s first use');
    expect(failure({ idle: { command: 'node', idle_stop_ms: 1000 } })).toBe(
      `${file}: mcpServers.idle.idle_stop_ms: only a server with "start": "on_first_use" is stopped when idle: add that, or remove idle_stop_ms`,
    );
    expect(failure({ lazy: { command: 'node', start: 'later' } })).toMatch(
      /mcpServers\.lazy\.start: expected "at_startup" \(the default.*or "on_first_use"/,
    );
  });

  it('builtin servers name tools of the host registry; an unknown name is an error naming it', () => {
    const [builtin] = parse({
      util: {
        type: 'builtin',
        tools: [{ name: 'calculate', description: 'Maths' }, { name: 'get_current_time' }],
      },
    });
    expect(builtin).toMatchObject({
      transport: 'builtin',
      tools: [{ name: 'calculate', description: 'Maths' }, { name: 'get_current_time' }],
    });
    expect(
      failure({ util: { type: 'builtin', tools: [{ name: 'calculate' }, { name: 'launch_rockets' }] } }),
    ).toBe(
      'config/mcp_servers.json: mcpServers.util.tools[1].name: there is no builtin tool "launch_rockets"; available: get_current_time, calculate',
    );
    expect(failure({ util: { type: 'builtin', tools: [] } })).toContain('mcpServers.util.tools: expected');
    // Without `tools`, every builtin tool is offered (as the README implies).
    const [all] = parse({ util: { type: 'builtin' } });
    expect(all?.transport === 'builtin' && all.tools.map((tool) => tool.name)).toEqual([
      'get_current_time',
      'calculate',
    ]);
  });

  it('openapi servers: an invalid document is an error with the JSON pointer of the problem', () => {
    expect(failure({ api: { type: 'openapi', openapi_spec: { openapi: '2.0', paths: {} } } })).toContain(
      'mcpServers.api.openapi_spec/openapi: expected an OpenAPI version string',
    );
    const broken = {
      openapi: '3.0.3',
      servers: [{ url: 'http://127.0.0.1:1' }],
      paths: { '/pets/{id}': { get: { parameters: [{ $ref: '#/components/parameters/missing' }] } } },
    };
    expect(failure({ api: { type: 'openapi', openapi_spec: broken } })).toContain(
      'mcpServers.api.openapi_spec/paths/~1pets~1{id}/get/parameters/0/$ref',
    );
    expect(failure({ api: { type: 'openapi', openapi_spec: { openapi: '3.1.0', paths: {} } } })).toContain(
      'openapi_base_url: expected',
    );
    expect(failure({ api: { type: 'openapi', openapi_spec: 'missing-spec.json' } })).toContain('cannot read');
  });

  it('expands ${VAR} in env and url at load; header templates stay templates, filled per request', () => {
    const env = { TOKEN: 'secret-value-123', HOST: '127.0.0.1' };
    const [stdio, remote] = parse(
      {
        a: { command: 'x', env: { API_TOKEN: '${TOKEN}' } },
        b: { url: 'http://${HOST}:9/mcp', headers: { Authorization: 'Bearer ${user_token}' } },
      },
      env,
    );
    expect(stdio?.transport === 'stdio' && stdio.env).toEqual({ API_TOKEN: 'secret-value-123' });
    expect(remote).toMatchObject({
      url: 'http://127.0.0.1:9/mcp',
      headers: { Authorization: 'Bearer ${user_token}' },
    });
    const message = failure({ a: { command: 'x', env: { KEY: '${MISSING}' } } }, env);
    expect(message).toContain('mcpServers.a.env.KEY: ${MISSING} is not set');
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

  it('a .local.json beside the file is merged over it, field by field (a git-ignored place for your own servers)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'config-'));
    try {
      writeFileSync(
        join(folder, 'mcp_servers.json'),
        JSON.stringify({
          mcpServers: {
            weather: { command: 'node', args: ['w.js'] },
            kb: { command: 'node', disabled: true },
          },
        }),
      );
      writeFileSync(
        join(folder, 'mcp_servers.local.json'),
        JSON.stringify({ mcpServers: { kb: { disabled: false }, mine: { url: 'https://mine.test/mcp' } } }),
      );
      const servers = await loadMcpConfig(join(folder, 'mcp_servers.json'), {});
      expect(servers?.map((server) => [server.name, server.disabled])).toEqual([
        ['weather', false],
        ['kb', false],
        ['mine', false],
      ]);
      expect(servers?.[1]).toMatchObject({ transport: 'stdio', command: 'node', cwd: folder });
      writeFileSync(
        join(folder, 'mcp_servers.local.json'),
        JSON.stringify({ mcpServers: { kb: { disbaled: false } } }),
      );
      await expect(loadMcpConfig(join(folder, 'mcp_servers.json'), {})).rejects.toThrow(
        /mcp_servers\.json \(with .*mcp_servers\.local\.json\): mcpServers\.kb\.disbaled: unknown field; did you mean "disabled"\?/,
      );
      expect(mcpConfigLabel(join(folder, 'mcp_servers.json'))).toBe(
        `${join(folder, 'mcp_servers.json')} (with ${join(folder, 'mcp_servers.local.json')})`,
      );
    } finally {
      rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
    }
  });

  it('the local file merges maps key by key at every depth: one env variable added keeps the shipped ones; null removes', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'config-'));
    try {
      writeFileSync(
        join(folder, 'mcp_servers.json'),
        JSON.stringify({
          mcpServers: {
            web: {
              command: 'node',
              args: ['web.js', '--quiet'],
              disabled: true,
              env: { WEB_SEARCH_BACKEND: 'duckduckgo', WEB_LANGUAGE: 'ja' },
            },
          },
        }),
      );
      writeFileSync(
        join(folder, 'mcp_servers.local.json'),
        JSON.stringify({
          mcpServers: {
            web: {
              disabled: false,
              args: ['web.js'],
              env: { WEB_ALLOW_HOSTS: '127.0.0.1', WEB_LANGUAGE: null },
            },
          },
        }),
      );
      const [web] = (await loadMcpConfig(join(folder, 'mcp_servers.json'), {})) ?? [];
      expect(web).toMatchObject({ disabled: false, args: ['web.js'] });
      expect((web as { env?: Record<string, string> }).env).toEqual({
        WEB_SEARCH_BACKEND: 'duckduckgo',
        WEB_ALLOW_HOSTS: '127.0.0.1',
      });
    } finally {
      rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
    }
  });

  describe('hostile or careless configs (hardening)', () => {
    it('10: a misspelled field is an error naming it and the closest known field', () => {
      expect(failure({ s: { command: 'x', allowedTools_: ['safe_tool'] } })).toMatch(
        /mcpServers\.s\.allowedTools_: unknown field; did you mean "allowed_tools"\?/,
      );
      expect(failure({ s: { command: 'x', disbaled: true } })).toContain('did you mean "disabled"?');
      expect(failure({ s: { url: 'https://a.test/mcp', header: { A: 'b' } } })).toContain(
        'did you mean "headers"?',
      );
      expect(failure({ s: { command: 'x', zzzzzzzzzz: 1 } })).toMatch(
        /unknown field \(known fields: transport/,
      );
    });

    it('10: headers_template and camelCase spellings are documented aliases', () => {
      const [remote, stdio] = parse({
        r: { url: 'https://a.test/mcp', headers_template: { Authorization: 'Bearer ${token}' } },
        s: { command: 'x', allowedTools: ['safe_tool'], timeoutMs: 1000 },
      });
      expect(remote).toMatchObject({ headers: { Authorization: 'Bearer ${token}' } });
      expect(stdio).toMatchObject({ allowedTools: ['safe_tool'], timeoutMs: 1000 });
      expect(failure({ s: { command: 'x', allowedTools: ['a'], allowed_tools: ['b'] } })).toContain(
        '"allowed_tools" is already given',
      );
    });

    it('11: timeout_ms past 2^31-1 ms is refused (Node would fire the timer after 1 ms)', () => {
      expect(failure({ s: { command: 'x', timeout_ms: 3_000_000_000 } })).toContain(
        'mcpServers.s.timeout_ms: expected a positive whole number of milliseconds, at most 2147483647',
      );
      expect(parse({ s: { command: 'x', timeout_ms: 2_147_483_647 } })[0]?.timeoutMs).toBe(2_147_483_647);
    });

    it('11: ${VAR} is expanded in command and args; ${VAR:-default} gives a default', () => {
      const [server] = parse(
        {
          s: { command: '${NODE_BIN}', args: ['${APP_DIR}/server.js', '--port=${PORT:-8080}', '${EMPTY:-}'] },
        },
        { NODE_BIN: '/usr/bin/node', APP_DIR: '/srv' },
      );
      expect(server).toMatchObject({ command: '/usr/bin/node', args: ['/srv/server.js', '--port=8080', ''] });
      expect(failure({ s: { command: 'x', args: ['${UNSET_VAR}'] } })).toContain(
        'mcpServers.s.args[0]: ${UNSET_VAR} is not set in the environment',
      );
    });

    it('11: a UTF-8 byte-order mark is accepted', () => {
      const servers = parseMcpConfig(
        `\uFEFF${JSON.stringify({ mcpServers: { s: { command: 'x' } } })}`,
        file,
        {},
      );
      expect(servers[0]?.name).toBe('s');
    });
  });
});

describe('header templates', () => {
  it('${name:-default} fills from tokens, then the environment, then the default', () => {
    const templates = {
      'X-Region': '${REGION:-ap-northeast-1}',
      Authorization: 'Bearer ${token}',
      'X-Trace': '${TRACE:-}',
    };
    expect(fillHeaders(templates, { token: 'tok-123456' }, {})).toEqual({
      headers: { 'X-Region': 'ap-northeast-1', Authorization: 'Bearer tok-123456', 'X-Trace': '' },
      missing: [],
    });
    expect(fillHeaders(templates, {}, { REGION: 'us-east-1' })).toEqual({
      headers: { 'X-Region': 'us-east-1', 'X-Trace': '' },
      missing: ['token'],
    });
  });
});
