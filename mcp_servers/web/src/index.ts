#!/usr/bin/env node
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { createServer, type SearchSettings } from './server.js';

/** A flag's value (`--name value`), else the variable's. */
function setting(args: string[], flag: string, variable: string): string | undefined {
  const at = args.indexOf(flag);
  const value = at === -1 ? process.env[variable] : args[at + 1];
  return value?.trim() || undefined;
}

/** The configuration: flags win over variables; the API key only from the environment (flags show in ps). */
function options(args: string[]) {
  const backend = setting(args, '--search-backend', 'WEB_SEARCH_BACKEND');
  if (backend && !['searxng', 'brave', 'tavily', 'duckduckgo'].includes(backend))
    throw new Error(`WEB_SEARCH_BACKEND must be searxng, brave, tavily or duckduckgo, not "${backend}"`);
  const url = setting(args, '--search-url', 'WEB_SEARCH_URL');
  const apiKey = process.env.WEB_SEARCH_API_KEY?.trim() || undefined;
  const allow = (setting(args, '--allow', 'WEB_ALLOW_HOSTS') ?? '').split(',').filter(Boolean);
  const number = (flag: string, variable: string) => {
    const raw = setting(args, flag, variable);
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${variable} must be a whole number ≥ 1`);
    return value;
  };
  const maxBytes = number('--max-bytes', 'WEB_FETCH_MAX_BYTES');
  const timeoutMs = number('--timeout-ms', 'WEB_FETCH_TIMEOUT_MS');
  return {
    ...(backend
      ? { search: { backend, ...(url ? { url } : {}), ...(apiKey ? { apiKey } : {}) } as SearchSettings }
      : {}),
    allow,
    limits: { ...(maxBytes ? { maxBytes } : {}), ...(timeoutMs ? { timeoutMs } : {}) },
  };
}

// Standard output is the MCP protocol: anything else goes to stderr.
async function main(): Promise<void> {
  const server = createServer(options(process.argv.slice(2)));
  await server.connect(new StdioServerTransport());
  const stop = () => void server.close().finally(() => process.exit(0));
  process.stdin.once('end', stop);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`mcp-server-web: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
