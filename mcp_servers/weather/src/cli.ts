import { parseArgs } from 'node:util';

/** What the command line asked for. */
export type CliCommand =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'stdio' }
  | { kind: 'http'; host: string; port: number }
  | { kind: 'usage-error'; message: string };

export const usage = `Usage: mcp-server-weather [--http [--port 3000] [--host 127.0.0.1]]

Serves the get_weather tool (Japan Meteorological Agency forecasts) over MCP.

Options:
  --http         serve Streamable HTTP at /mcp instead of stdio
  --port <n>     HTTP port (default 3000; 0 picks a free port)
  --host <name>  HTTP bind address (default 127.0.0.1)
  --help         show this help
  --version      show the version

Environment:
  JMA_BASE_URL     JMA base URL (default https://www.jma.go.jp)
  JMA_TIMEOUT_MS   timeout of each JMA request in ms (default 5000)
  JMA_CACHE        "off" refetches on every call (benchmarks, debugging)
  MCP_WEATHER_NOW  pins "today" (an ISO date-time) for replaying recorded data; unset: the real clock
  LOG_LEVEL        "info" (default) or "warn" to log less (logs go to stderr)
`;

/** Parses argv (without node and the script); never throws. */
export function parseCommandLine(argv: string[]): CliCommand {
  let values: { http?: boolean; port?: string; host?: string; help?: boolean; version?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        http: { type: 'boolean' },
        port: { type: 'string' },
        host: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    }));
  } catch (error) {
    return { kind: 'usage-error', message: (error as Error).message };
  }
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };
  if (!values.http) {
    if (values.port !== undefined || values.host !== undefined) {
      return { kind: 'usage-error', message: '--port and --host only apply with --http' };
    }
    return { kind: 'stdio' };
  }
  const port = Number(values.port ?? '3000');
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    return {
      kind: 'usage-error',
      message: `--port must be a whole number from 0 to 65535, got "${values.port}"`,
    };
  }
  return { kind: 'http', host: values.host ?? '127.0.0.1', port };
}
