#!/usr/bin/env node
import { runServer, UsageError } from '@ai-assistant/mcp-server-kit';
import { defaultPort, usage } from './cli.js';
import { JmaClient } from './jma/client.js';
import { createServer } from './server.js';
import { version } from './version.js';

await runServer({
  name: 'mcp-server-weather',
  version,
  usage,
  defaultPort,
  async prepare({ logger }) {
    // MCP_WEATHER_NOW pins "today" for replaying recorded data; production leaves it unset (real clock).
    const pinned = process.env.MCP_WEATHER_NOW ? new Date(process.env.MCP_WEATHER_NOW) : undefined;
    if (pinned && Number.isNaN(pinned.getTime()))
      throw new UsageError(`MCP_WEATHER_NOW="${process.env.MCP_WEATHER_NOW}" is not a date`);
    const now = pinned ? () => pinned : () => new Date();
    const timeoutMs = Number(process.env.JMA_TIMEOUT_MS ?? '5000');
    const jma = new JmaClient({
      baseUrl: process.env.JMA_BASE_URL || undefined,
      timeoutMs: Number.isFinite(timeoutMs) && timeoutMs > 0 ? timeoutMs : 5000,
      now,
      cache: process.env.JMA_CACHE !== 'off',
      userAgent: `mcp-server-weather/${version} (@ai-assistant/mcp-server-weather)`,
    });
    // MCP_WEATHER_CHART=off: the week answers in text and data only, for hosts that cannot show images.
    const chart = process.env.MCP_WEATHER_CHART !== 'off';
    return { newServer: () => createServer({ jma, now, logger, chart }), close: () => jma.close() };
  },
});
