// The client the MCP conformance suite drives (client mode): host-core's own McpClientManager, as the
// apps use it. The suite gives the server's URL as the last argument and the scenario in
// MCP_CONFORMANCE_SCENARIO; this client connects, lists the tools, calls each with arguments made from
// its schema, and answers any elicitation by accepting (the client applies the schema's defaults).
import { McpClientManager } from '../packages/host-core/dist/index.js';

const url = process.argv.at(-1);
const manager = new McpClientManager({ connectTimeoutMs: 10_000 });
/** A value for each required property: numbers 1, 2, 3…, strings, booleans. */
function argumentsFor(schema) {
  const args = {};
  let next = 1;
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    if (!(schema.required ?? []).includes(name)) continue;
    const type = property?.type;
    args[name] =
      type === 'number' || type === 'integer' ? next++ : type === 'boolean' ? true : `value ${next++}`;
  }
  return args;
}
try {
  await manager.connect([
    { name: 'conformance', transport: 'http', url, headers: {}, timeoutMs: 20_000, disabled: false },
  ]);
  const [status] = manager.status();
  if (status?.state !== 'connected') throw new Error(`not connected: ${status?.reason ?? status?.state}`);
  for (const tool of manager.listTools()) {
    const outcome = await manager.callTool(tool.name, argumentsFor(tool.inputSchema), {
      elicit: async () => ({ action: 'accept', content: {} }),
      requester: 'conformance',
    });
    process.stdout.write(`${tool.name}: ${outcome.isError ? 'error' : 'ok'} ${outcome.text.slice(0, 200)}\n`);
  }
} finally {
  await manager.close();
}
