import { type ParseArgsConfig, parseArgs } from 'node:util';

/** A server's own options, in `node:util` `parseArgs` form. */
export type ParseArgsOptions = NonNullable<ParseArgsConfig['options']>;

/** The HTTP listener the command line asked for (`--http [--port n] [--host name]`). */
export interface HttpListen {
  host: string;
  port: number;
}

/** What a server's command line asked for; `values` holds the server's own options. */
export type ServerCommand<Values = Record<string, string | boolean | undefined>> =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'serve'; http?: HttpListen; values: Values }
  | { kind: 'usage-error'; message: string };

/** Options of {@link parseServerCommandLine}. */
export interface CommandLineOptions {
  /** The HTTP port when `--http` is given without `--port`. */
  defaultPort: number;
  /** The server's own options, in `node:util` `parseArgs` form (`--http`, `--port`, `--host`, `--help`, `--version` are added). */
  options?: ParseArgsOptions;
}

/** The options every server shares, as its usage text lists them. */
export function sharedUsage(defaultPort: number): string {
  return `  --http         serve Streamable HTTP at /mcp (legacy HTTP+SSE at /mcp/sse) instead of stdio
  --port <n>     HTTP port (default ${defaultPort}; 0 picks a free port)
  --host <name>  HTTP bind address (default 127.0.0.1)
  --help         show this help
  --version      show the version
`;
}

/**
 * Parses a server's argv (without node and the script) into one of its commands; never throws. Every
 * server takes `--http`, `--port`, `--host`, `--help` and `--version`; positional arguments are refused.
 */
export function parseServerCommandLine(argv: string[], options: CommandLineOptions): ServerCommand {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        ...options.options,
        http: { type: 'boolean' },
        port: { type: 'string' },
        host: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    }) as { values: Record<string, string | boolean | undefined> });
  } catch (error) {
    return { kind: 'usage-error', message: (error as Error).message };
  }
  const { http, port: portText, host, help, version, ...own } = values;
  if (help) return { kind: 'help' };
  if (version) return { kind: 'version' };
  if (!http) {
    if (portText !== undefined || host !== undefined)
      return { kind: 'usage-error', message: '--port and --host only apply with --http' };
    return { kind: 'serve', values: own };
  }
  const port = Number(portText ?? String(options.defaultPort));
  if (typeof portText === 'string' && portText.trim() === '') return portError(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) return portError(String(portText));
  return { kind: 'serve', http: { host: typeof host === 'string' ? host : '127.0.0.1', port }, values: own };
}

function portError(given: string): ServerCommand {
  return { kind: 'usage-error', message: `--port must be a whole number from 0 to 65535, got "${given}"` };
}
