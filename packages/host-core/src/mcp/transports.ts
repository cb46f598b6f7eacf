import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Logger } from '../logger.js';
import { environmentSecrets, type Redactor } from '../redaction.js';
import { defaultMaxResponseBytes } from '../tools/openapi-call.js';
import { capResponse } from './capped-response.js';
import type { McpConnection } from './connection.js';
import { currentTokens, fillHeaders } from './header-templates.js';
import { stderrLinesKept } from './stderr-cause.js';

/** What opening a transport needs from the manager. */
export interface TransportContext {
  logger: Logger;
  redactor: Redactor;
  env: NodeJS.ProcessEnv;
}

/**
 * Registers a connection's configured secrets: pinned (hidden everywhere), except values holding a
 * person's own secret, which are hidden in the logs only (their view hides them in their output):
 * one person's credential must never rewrite another's results.
 */
function keepSecrets(context: TransportContext, personal: string | undefined, values: string[]): void {
  for (const value of values) {
    if (personal && value.includes(personal)) context.redactor.add([value, personal]);
    else context.redactor.pin([value]);
  }
}

/** stdio: the child gets only a minimal inherited environment plus its configured `env`; stderr is kept. */
async function stdioTransport(connection: McpConnection, context: TransportContext): Promise<Transport> {
  const config = connection.config;
  if (config.transport !== 'stdio') throw new Error(`${config.transport} is not stdio`);
  // Secrets passed on purpose in the child's env are secrets of the host too (a person's are theirs).
  keepSecrets(context, config.personalSecret, environmentSecrets(config.env));
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args,
    // The SDK adds only a minimal inherited set (PATH, HOME, …): the host's secrets stay here.
    env: config.env,
    cwd: config.cwd,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      connection.stderrTail = [...connection.stderrTail.slice(1 - stderrLinesKept), line.slice(0, 500)];
      context.logger.debug({ server: config.name, stderr: line.slice(0, 2000) }, 'MCP server stderr');
    }
  });
  return transport;
}

/**
 * The transport of one MCP server. Each transport's module is loaded only when a config asks for it
 * (stdio's alone is a fifth of the SDK client's import time); HTTP and SSE
 * send their headers through a fetch that fills the templates per request (the request's tokens,
 * then the environment) and caps every response body.
 */
export async function createTransport(
  connection: McpConnection,
  context: TransportContext,
): Promise<Transport> {
  const config = connection.config;
  if (config.transport === 'stdio') return stdioTransport(connection, context);
  if (config.transport !== 'http' && config.transport !== 'sse')
    throw new Error(`${config.transport} has no transport`);
  keepSecrets(
    context,
    config.personalSecret,
    Object.values(fillHeaders(config.headers, {}, context.env).headers),
  );
  const fetchWithHeaders = (input: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    for (const [header, value] of Object.entries(
      fillHeaders(config.headers, currentTokens(), context.env).headers,
    ))
      headers.set(header, value);
    return fetch(input, { ...init, headers }).then((response) =>
      capResponse(response, config.maxResponseBytes ?? defaultMaxResponseBytes),
    );
  };
  const url = new URL(config.url);
  if (config.transport === 'http') {
    const { StreamableHTTPClientTransport } = await import(
      '@modelcontextprotocol/sdk/client/streamableHttp.js'
    );
    return new StreamableHTTPClientTransport(url, { fetch: fetchWithHeaders });
  }
  const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
  return new SSEClientTransport(url, {
    fetch: fetchWithHeaders,
    eventSourceInit: { fetch: fetchWithHeaders },
  });
}
