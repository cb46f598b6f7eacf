// A real MCP server over stdio (run as a child process: `node <recordsServerPath>`) with one destructive
// tool taking many arguments, which answers with exactly what it received. With `RECORDS_CALLS_FILE`
// set, each call's arguments are also appended to that file (one JSON line), so a test can count the
// calls of servers that several bot processes started.
import { appendFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Server } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

/** Where the records server's entry lives, for a `command`/`args` config entry. */
export const recordsServerPath = fileURLToPath(import.meta.url);

/** The tool's properties: `id` and `note0` … `note11`. */
const properties: Record<string, { type: 'string' }> = { id: { type: 'string' } };
for (let index = 0; index < 12; index++) properties[`note${index}`] = { type: 'string' };

async function serve(): Promise<void> {
  const server = new Server({ name: 'records', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', async () => ({
    tools: [
      {
        name: 'delete_record',
        description: 'Deletes a record (a write)',
        inputSchema: { type: 'object', properties, required: ['id'] },
        annotations: { destructiveHint: true },
      },
    ],
  }));
  server.setRequestHandler('tools/call', async (request) => {
    const received = JSON.stringify(request.params.arguments ?? {});
    const callsFile = process.env.RECORDS_CALLS_FILE;
    if (callsFile) appendFileSync(callsFile, `${received}\n`);
    return { content: [{ type: 'text', text: `deleted with ${received}` }] };
  });
  await server.connect(new StdioServerTransport());
}

if (process.argv[1] === recordsServerPath) await serve();
