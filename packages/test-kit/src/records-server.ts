// A real MCP server over stdio (run as a child process: `node <recordsServerPath>`) with one destructive
// tool taking many arguments, which answers with exactly what it received.
import { fileURLToPath } from 'node:url';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/** Where the records server's entry lives, for a `command`/`args` config entry. */
export const recordsServerPath = fileURLToPath(import.meta.url);

/** The tool's properties: `id` and `note0` … `note11`. */
const properties: Record<string, { type: 'string' }> = { id: { type: 'string' } };
for (let index = 0; index < 12; index++) properties[`note${index}`] = { type: 'string' };

async function serve(): Promise<void> {
  const server = new Server({ name: 'records', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: 'delete_record',
        description: 'Deletes a record (a write)',
        inputSchema: { type: 'object', properties, required: ['id'] },
        annotations: { destructiveHint: true },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => ({
    content: [{ type: 'text', text: `deleted with ${JSON.stringify(request.params.arguments ?? {})}` }],
  }));
  await server.connect(new StdioServerTransport());
}

if (process.argv[1] === recordsServerPath) await serve();
