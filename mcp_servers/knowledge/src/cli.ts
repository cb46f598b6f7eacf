import { parseArgs } from 'node:util';

/** What the command line asked for. */
export type CliCommand =
  | { kind: 'help' }
  | { kind: 'version' }
  | {
      kind: 'serve';
      docs?: string;
      http?: { host: string; port: number };
      embeddings?: { url?: string; model?: string; cacheDir?: string };
    }
  | { kind: 'usage-error'; message: string };

export const usage = `Usage: mcp-server-knowledge [--docs DIR] [--http [--port 3001] [--host 127.0.0.1]]

Serves search_knowledge and get_document over MCP, with kb://documents resources and prompts.

Options:
  --docs <dir>   folder of Markdown / text documents (default: KNOWLEDGE_DIR, else the bundled example corpus)
  --http         serve Streamable HTTP at /mcp instead of stdio
  --port <n>     HTTP port (default 3001; 0 picks a free port)
  --host <name>  HTTP bind address (default 127.0.0.1)
  --embeddings-url <url>     an OpenAI-compatible embeddings endpoint's base URL: hybrid search
  --embeddings-model <name>  the embedding model (with --embeddings-url)
  --cache-dir <dir>          where vectors are kept (default: KNOWLEDGE_CACHE_DIR, else the user's cache folder)
  --help, --version

Environment:
  KNOWLEDGE_DIR  folder of documents (when --docs is not given)
  KNOWLEDGE_MAX_FILE_BYTES  largest file indexed (default 2097152); larger ones are skipped
  KNOWLEDGE_EMBEDDINGS_URL, KNOWLEDGE_EMBEDDINGS_MODEL, KNOWLEDGE_EMBEDDINGS_API_KEY
                 hybrid search through an OpenAI-compatible embeddings endpoint (the key only from here)
  KNOWLEDGE_CACHE_DIR  where vectors are kept between runs
  LOG_LEVEL      "info" (default) or "warn" (logs go to stderr)
`;

/** Parses argv (without node and the script); never throws. */
export function parseCommandLine(argv: string[]): CliCommand {
  let values: {
    docs?: string;
    http?: boolean;
    port?: string;
    host?: string;
    help?: boolean;
    version?: boolean;
    'embeddings-url'?: string;
    'embeddings-model'?: string;
    'cache-dir'?: string;
  };
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        docs: { type: 'string' },
        http: { type: 'boolean' },
        port: { type: 'string' },
        host: { type: 'string' },
        'embeddings-url': { type: 'string' },
        'embeddings-model': { type: 'string' },
        'cache-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    }));
  } catch (error) {
    return { kind: 'usage-error', message: (error as Error).message };
  }
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };
  if (!values.http && (values.port !== undefined || values.host !== undefined)) {
    return { kind: 'usage-error', message: '--port and --host only apply with --http' };
  }
  const port = Number(values.port ?? '3001');
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    return {
      kind: 'usage-error',
      message: `--port must be a whole number from 0 to 65535, got "${values.port}"`,
    };
  }
  return {
    kind: 'serve',
    ...(values.docs ? { docs: values.docs } : {}),
    ...(values.http ? { http: { host: values.host ?? '127.0.0.1', port } } : {}),
    ...(values['embeddings-url'] || values['embeddings-model'] || values['cache-dir']
      ? {
          embeddings: {
            ...(values['embeddings-url'] ? { url: values['embeddings-url'] } : {}),
            ...(values['embeddings-model'] ? { model: values['embeddings-model'] } : {}),
            ...(values['cache-dir'] ? { cacheDir: values['cache-dir'] } : {}),
          },
        }
      : {}),
  };
}
