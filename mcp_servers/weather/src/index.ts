#!/usr/bin/env node
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { parseCommandLine, usage } from './cli.js';
import { JmaClient } from './jma/client.js';
import { stderrLogger } from './log.js';
import { createServer } from './server.js';
import { version } from './version.js';

async function main(): Promise<void> {
  const command = parseCommandLine(process.argv.slice(2));
  switch (command.kind) {
    case 'help':
      process.stdout.write(usage);
      return;
    case 'version':
      process.stdout.write(`${version}\n`);
      return;
    case 'usage-error':
      process.stderr.write(`mcp-server-weather: ${command.message}\n\n${usage}`);
      process.exitCode = 2;
      return;
  }
  const logger = stderrLogger({
    quiet: process.env.LOG_LEVEL === 'warn' || process.env.LOG_LEVEL === 'error',
  });
  // MCP_WEATHER_NOW pins "today" for replaying recorded data; production leaves it unset (real clock).
  const pinned = process.env.MCP_WEATHER_NOW ? new Date(process.env.MCP_WEATHER_NOW) : undefined;
  if (pinned && Number.isNaN(pinned.getTime())) {
    process.stderr.write(
      `mcp-server-weather: MCP_WEATHER_NOW="${process.env.MCP_WEATHER_NOW}" is not a date\n`,
    );
    process.exitCode = 2;
    return;
  }
  const now = pinned ? () => pinned : () => new Date();
  const timeoutMs = Number(process.env.JMA_TIMEOUT_MS ?? '5000');
  const jma = new JmaClient({
    baseUrl: process.env.JMA_BASE_URL || undefined,
    timeoutMs: Number.isFinite(timeoutMs) && timeoutMs > 0 ? timeoutMs : 5000,
    now,
    cache: process.env.JMA_CACHE !== 'off',
    userAgent: `mcp-server-weather/${version} (@ai-assistant/mcp-server-weather)`,
  });
  const newServer = () => createServer({ jma, now, logger });

  let shutDown: () => Promise<void>;
  if (command.kind === 'http') {
    // The HTTP transport is only loaded when asked for: stdio start-up stays small.
    const { serveHttp } = await import('./http.js');
    const http = await serveHttp({ host: command.host, port: command.port, logger, newServer });
    logger.info('listening', { url: http.url });
    shutDown = () => http.close();
  } else {
    const server = newServer();
    await server.connect(new StdioServerTransport());
    logger.info('serving on stdio', { version });
    shutDown = () => server.close();
    // The host closing our stdin means the session is over.
    process.stdin.once('end', () => void stop());
  }

  let stopping = false;
  async function stop(): Promise<void> {
    if (stopping) return;
    stopping = true;
    await Promise.race([
      Promise.allSettled([shutDown(), jma.close()]),
      new Promise((resolve) => setTimeout(resolve, 2000).unref()),
    ]);
    process.exit(0);
  }
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  process.stderr.write(`mcp-server-weather: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
