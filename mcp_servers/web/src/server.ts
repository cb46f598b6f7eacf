import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

/** Builds the web MCP server without starting any transport (no side effects), so tests can serve it. */
export function createServer(): McpServer {
  const server = new McpServer({ name: 'mcp-server-web', version: '0.0.0' });
  // An example tool: replace it with what this server is for. Mark tools that only read as such.
  server.registerTool(
    'greet',
    {
      title: 'Greet',
      description: 'Greets a person by name. An example tool of the web server.',
      inputSchema: { name: z.string().min(1).describe('who to greet') },
      annotations: { readOnlyHint: true },
    },
    async ({ name }) => ({ content: [{ type: 'text', text: `Hello, ${name}!` }] }),
  );
  return server;
}
