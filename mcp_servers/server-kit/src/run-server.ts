import type { McpServer, ServerNotifier } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { ParseArgsOptions } from './command-line.js';
import { parseServerCommandLine } from './command-line.js';
import { serveHttp } from './http.js';
import { type Logger, stderrLogger } from './log.js';

/** A configuration the server cannot start with; the message says what to change. Exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** What a server prepares from its options before it serves. */
export interface ServerParts {
  /** Builds one MCP server (per request, per session or per stdio connection). */
  newServer: () => McpServer;
  /** Fields added to the "listening" / "serving on stdio" log line. */
  logFields?: Record<string, unknown>;
  /** Releases what the server holds (clients, watchers) on shutdown. */
  close?: () => void | Promise<void>;
  /** Called once the server serves (to start watchers that notify clients of changes). */
  onServing?: (serving: Serving) => void;
}

/** How the server is being served, handed to {@link ServerProgram.serving}. */
export interface Serving {
  /** Change notifications for 2026-07-28 HTTP clients' listen streams (undefined on stdio, where the SDK routes the instance's own notifications). */
  notify?: ServerNotifier;
}

/** One server's command-line program. */
export interface ServerProgram {
  /** The command's name, e.g. `mcp-server-weather`; it prefixes every error message. */
  name: string;
  version: string;
  /** The `--help` text. */
  usage: string;
  /** The HTTP port when `--http` is given without `--port`. */
  defaultPort: number;
  /** The server's own options (`node:util` `parseArgs` form). */
  options?: ParseArgsOptions;
  /** Prepares the server from its own options; throws {@link UsageError} on a bad configuration. */
  prepare(context: {
    values: Record<string, string | boolean | undefined>;
    logger: Logger;
  }): Promise<ServerParts>;
}

/**
 * Runs a server's command line: `--help`, `--version`, usage errors (exit 2), then stdio (both eras,
 * through the SDK's `serveStdio`) or `--http` (see `serveHttp`), logging JSON lines to stderr
 * (`LOG_LEVEL=warn` drops info lines), until stdin ends (stdio), SIGINT or SIGTERM.
 */
export async function runServer(program: ServerProgram, argv = process.argv.slice(2)): Promise<void> {
  try {
    await run(program, argv);
  } catch (error) {
    process.stderr.write(`${program.name}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(error instanceof UsageError ? 2 : 1);
  }
}

async function run(program: ServerProgram, argv: string[]): Promise<void> {
  const command = parseServerCommandLine(argv, {
    defaultPort: program.defaultPort,
    ...(program.options ? { options: program.options } : {}),
  });
  if (command.kind === 'help') return void process.stdout.write(program.usage);
  if (command.kind === 'version') return void process.stdout.write(`${program.version}\n`);
  if (command.kind === 'usage-error') {
    process.stderr.write(`${program.name}: ${command.message}\n\n${program.usage}`);
    process.exitCode = 2;
    return;
  }
  const logger = stderrLogger({
    quiet: process.env.LOG_LEVEL === 'warn' || process.env.LOG_LEVEL === 'error',
  });
  const parts = await program.prepare({ values: command.values, logger });
  let shutDown: () => Promise<void>;
  if (command.http) {
    const http = await serveHttp({ ...command.http, logger, newServer: parts.newServer });
    logger.info('listening', { url: http.url, version: program.version, ...parts.logFields });
    shutDown = () => http.close();
    parts.onServing?.({ notify: http.notify });
  } else {
    const stdio = serveStdio(() => parts.newServer(), {
      onerror: (error) => logger.warn('stdio message failed', { error: error.message }),
    });
    logger.info('serving on stdio', { version: program.version, ...parts.logFields });
    shutDown = () => stdio.close();
    parts.onServing?.({});
    // The host closing our stdin means the connection is over.
    process.stdin.once('end', () => void stop());
  }
  let stopping = false;
  async function stop(): Promise<void> {
    if (stopping) return;
    stopping = true;
    await Promise.race([
      Promise.allSettled([shutDown(), parts.close?.()]),
      new Promise((resolve) => setTimeout(resolve, 2000).unref()),
    ]);
    process.exit(0);
  }
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}
