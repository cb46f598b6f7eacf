import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startFakeJma } from '@ai-assistant/mcp-server-weather/testing';
import { describe, expect, it } from 'vitest';
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

describe('the example local config (config/mcp_servers.local.example.json)', () => {
  it('is valid as config/mcp_servers.local.json beside the shipped config: knowledge on, an http, a builtin and an openapi entry', async () => {
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
        ['web', 'stdio', true],
      ]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
