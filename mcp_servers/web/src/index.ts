#!/usr/bin/env node
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createServer } from './server.js';

// Standard output is the MCP protocol: anything else goes to stderr.
async function main(): Promise<void> {
  const server = createServer();
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
