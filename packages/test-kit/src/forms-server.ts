// A real MCP server over stdio (run as a child process: `node <formsServerPath>`) whose tool `ask` asks
// the person a form (`elicitation/create`) built to test a host's limits, and answers with exactly what
// the host sent back: `answered {…}`, or `refused: <the host's error message>`.
import { fileURLToPath } from 'node:url';
import { Server } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

/** Where the forms server's entry lives, for a `command`/`args` config entry. */
export const formsServerPath = fileURLToPath(import.meta.url);

/** Two enum values that differ only after their 150th character (Slack's longest option value). */
export const longChoices = [`${'a'.repeat(150)}-first`, `${'a'.repeat(150)}-second`];

/** The forms the tool asks, by name. */
export const forms: Record<string, Record<string, unknown>> = {
  // 1,004 string fields; the last one is required.
  many: {
    type: 'object',
    properties: Object.fromEntries(
      Array.from({ length: 1004 }, (_, index) => [
        `field${index}`,
        { type: 'string', title: `Field ${index}` },
      ]),
    ),
    required: ['field1003'],
  },
  'long-choices': {
    type: 'object',
    properties: { choice: { type: 'string', title: 'Choice', enum: longChoices } },
    required: ['choice'],
  },
  'long-default': {
    type: 'object',
    properties: {
      note: { type: 'string', title: 'Note', default: 'n'.repeat(5000) },
      name: { type: 'string', title: 'Name', default: 'Taro' },
    },
  },
};

async function serve(): Promise<void> {
  const server = new Server({ name: 'forms', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', async () => ({
    tools: [
      {
        name: 'ask',
        description: 'Asks the person to fill in a form',
        inputSchema: {
          type: 'object',
          properties: { form: { type: 'string', enum: Object.keys(forms) } },
          required: ['form'],
        },
        annotations: { readOnlyHint: true },
      },
    ],
  }));
  server.setRequestHandler('tools/call', async (request) => {
    const name = String(request.params.arguments?.form ?? '');
    try {
      // The raw request: what the host answers is recorded as it came, unchecked by the SDK.
      const result = await server.request({
        method: 'elicitation/create',
        params: { mode: 'form', message: `Please fill in the ${name} form`, requestedSchema: forms[name] },
      });
      return { content: [{ type: 'text', text: `answered ${JSON.stringify(result)}` }] };
    } catch (error) {
      return { content: [{ type: 'text', text: `refused: ${(error as Error).message}` }] };
    }
  });
  await server.connect(new StdioServerTransport());
}

if (process.argv[1] === formsServerPath) await serve();
