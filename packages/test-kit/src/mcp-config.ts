import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The built weather server (this workspace's `@ai-assistant/mcp-server-weather`). */
export const weatherEntry = join(
  dirname(createRequire(import.meta.url).resolve('@ai-assistant/mcp-server-weather/package.json')),
  'dist',
  'index.js',
);

/** Writes an mcp_servers.json running the real weather server against a fake JMA, plus `extra` entries. */
export function writeMcpConfig(
  jmaBaseUrl: string,
  extra: Record<string, unknown> = {},
): { path: string; remove(): void } {
  const folder = mkdtempSync(join(tmpdir(), 'bot-config-'));
  const path = join(folder, 'mcp_servers.json');
  writeFileSync(
    path,
    JSON.stringify({
      mcpServers: {
        weather: {
          command: process.execPath,
          args: [weatherEntry],
          env: { JMA_BASE_URL: jmaBaseUrl, MCP_WEATHER_NOW: '2026-03-12T05:30:00+09:00' },
          status_message: '🌤️ 天気を調べています…',
        },
        ...extra,
      },
    }),
  );
  return { path, remove: () => rmSync(folder, { recursive: true, force: true, maxRetries: 5 }) };
}
