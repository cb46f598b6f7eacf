// A real MCP server over stdio (run as a child process: `node <catalogServerPath> <catalog.json>`) that
// lists a recorded catalog's tools exactly as recorded (a file of the shape `{ "server", "tools": [...] }`)
// and answers every call with the tool's name and the arguments it received, so tests and benchmarks can
// stand up real servers with real servers' tool definitions.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Tool } from '@modelcontextprotocol/server';
import { Server } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

/** Where the catalog server's entry lives, for a `command`/`args` config entry. */
export const catalogServerPath = fileURLToPath(import.meta.url);

async function serve(file: string): Promise<void> {
  const recorded = JSON.parse(readFileSync(file, 'utf8')) as { server: string; tools: Tool[] };
  const names = new Set(recorded.tools.map((tool) => tool.name));
  const server = new Server({ name: recorded.server, version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', async () => ({ tools: recorded.tools }));
  server.setRequestHandler('tools/call', async (request) => {
    const { name } = request.params;
    if (!names.has(name)) return { content: [{ type: 'text', text: `no tool ${name}` }], isError: true };
    return {
      content: [
        {
          type: 'text',
          text: `${recorded.server} ran ${name} with ${JSON.stringify(request.params.arguments ?? {})}`,
        },
      ],
    };
  });
  await server.connect(new StdioServerTransport());
}

if (process.argv[1] === catalogServerPath) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: node catalog-server.js <catalog.json>\n');
    process.exit(2);
  }
  await serve(file);
}
