import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startFakeJma } from '@ai-assistant/mcp-server-weather/testing';
import { describe, expect, it } from 'vitest';
import { serverSchema } from '../src/config/config-schema.js';
import { loadMcpConfig } from '../src/config/mcp-config.js';
import { McpClientManager } from '../src/mcp/client-manager.js';

const shipped = resolve(import.meta.dirname, '../../../config/mcp_servers.json');

describe('the shipped config forwards the weather server’s variables', () => {
  it('unset variables reach the server as empty (its own defaults apply)', async () => {
    const servers = await loadMcpConfig(shipped, {});
    const weather = servers?.find((server) => server.name === 'weather');
    expect(weather?.transport === 'stdio' && weather.env).toEqual({
      JMA_BASE_URL: '',
      JMA_TIMEOUT_MS: '',
      JMA_CACHE: '',
      MCP_WEATHER_NOW: '',
      LOG_LEVEL: '',
    });
  });

  it('JMA_BASE_URL and MCP_WEATHER_NOW set in the shell reach the weather server', async () => {
    const jma = await startFakeJma();
    const env = {
      PATH: process.env.PATH,
      JMA_BASE_URL: jma.baseUrl,
      MCP_WEATHER_NOW: '2026-03-12T05:30:00+09:00',
    };
    const servers = (await loadMcpConfig(shipped, env))?.filter((server) => server.name === 'weather') ?? [];
    const manager = new McpClientManager({ env });
    try {
      await manager.connect(servers);
      const result = await manager.callTool('mcp__weather__get_weather', { location: '東京' });
      expect(result.isError).toBe(false);
      expect(result.text).toContain('2026-03-12');
      expect(jma.hits.get('/bosai/forecast/data/forecast/130000.json')).toBeGreaterThan(0);
    } finally {
      await manager.close();
      await jma.close();
    }
  });
});

describe('out of the box: weather, the knowledge folder and web search', () => {
  it('all three start; the knowledge server searches the repository’s knowledge/ folder; web search needs no key', async () => {
    const env = { PATH: process.env.PATH };
    const servers = (await loadMcpConfig(shipped, env)) ?? [];
    expect(servers.map((server) => [server.name, server.disabled])).toEqual([
      ['weather', false],
      ['knowledge', false],
      ['web', false],
    ]);
    const manager = new McpClientManager({ env, connectTimeoutMs: 60_000 });
    try {
      await manager.connect(servers);
      expect(manager.status().map((server) => [server.name, server.state])).toEqual([
        ['weather', 'connected'],
        ['knowledge', 'connected'],
        ['web', 'connected'],
      ]);
      const found = await manager.callTool('mcp__knowledge__search_knowledge', { query: 'KNOWLEDGE_DIR' });
      expect(found.text).toContain('kb://documents/README.md');
      expect(manager.listTools().map((tool) => tool.name)).toContain('mcp__web__web_search');
    } finally {
      await manager.close();
    }
  });

  it('a knowledge folder that does not exist: that server alone is skipped, with a line saying why', async () => {
    const env = { PATH: process.env.PATH, KNOWLEDGE_DIR: '/nonexistent/team-docs' };
    const manager = new McpClientManager({ env, connectTimeoutMs: 60_000 });
    try {
      await manager.connect((await loadMcpConfig(shipped, env)) ?? []);
      // The supervisor retries it meanwhile: wait for a moment it is down, not one it is reconnecting.
      const down = () => ['failed', 'restarting'].includes(statusOf('knowledge')?.state ?? '');
      const statusOf = (name: string) => manager.status().find((server) => server.name === name);
      for (let tries = 0; tries < 600 && !down(); tries++) await new Promise((done) => setTimeout(done, 100));
      const status = Object.fromEntries(manager.status().map((server) => [server.name, server]));
      // The folder came from the environment, so the host shows it redacted, as every such value.
      expect(['failed', 'restarting']).toContain(status.knowledge?.state);
      expect(status.knowledge?.reason).toContain('is not a folder (set --docs or KNOWLEDGE_DIR)');
      expect([status.weather?.state, status.web?.state]).toEqual(['connected', 'connected']);
    } finally {
      await manager.close();
    }
  });
});

describe('the example local config (config/mcp_servers.local.example.json)', () => {
  it('is valid as config/mcp_servers.local.json beside the shipped config: an http, a builtin and an openapi entry', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'local-example-'));
    try {
      copyFileSync(shipped, join(folder, 'mcp_servers.json'));
      mkdirSync(join(folder, 'examples'));
      copyFileSync(
        resolve(import.meta.dirname, '../../../config/examples/pets.openapi.json'),
        join(folder, 'examples', 'pets.openapi.json'),
      );
      copyFileSync(
        resolve(import.meta.dirname, '../../../config/mcp_servers.local.example.json'),
        join(folder, 'mcp_servers.local.json'),
      );
      const servers = (await loadMcpConfig(join(folder, 'mcp_servers.json'), {})) ?? [];
      expect(
        servers.map((server) => [server.name, server.transport, server.disabled ?? false]).sort(),
      ).toEqual([
        ['clock', 'builtin', true],
        ['knowledge', 'stdio', false],
        ['pets', 'openapi', true],
        ['tickets', 'http', true],
        ['weather', 'stdio', false],
        ['web', 'stdio', false],
      ]);
    } finally {
      rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
    }
  });
});

describe("the repository README's config docs", () => {
  const readme = readFileSync(resolve(import.meta.dirname, '../../../README.md'), 'utf8');
  const section = (heading: string) => {
    const start = readme.indexOf(heading);
    return readme.slice(start, readme.indexOf('\n## ', start + heading.length));
  };

  it('#48 "Adding an MCP server" lists every field of an entry', () => {
    const adding = section('\n## Adding an MCP server');
    // The list of fields runs up to the first example.
    const named = new Set(
      [...adding.slice(0, adding.indexOf('```json')).matchAll(/`([a-z_]+)`/g)].map((match) => match[1]),
    );
    expect(Object.keys(serverSchema().shape).filter((field) => !named.has(field))).toEqual([]);
  });

  it('#48 says the knowledge server ships on, as config/mcp_servers.json has it', () => {
    expect(readme).not.toContain('{"knowledge": {"disabled": false}}');
    expect(readme).not.toMatch(/knowledge server turned on/);
    const knowledgeReadme = readFileSync(
      resolve(import.meta.dirname, '../../../mcp_servers/knowledge/README.md'),
      'utf8',
    );
    expect(knowledgeReadme).not.toMatch(/it is listed disabled/);
  });
});
