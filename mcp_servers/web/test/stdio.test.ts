import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const entry = resolve(import.meta.dirname, '..', 'dist', 'index.js');

describe('mcp-server-web over stdio (the built executable)', () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: 'test', version: '0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [entry] }));
  });
  afterAll(() => client?.close());

  it('lists its tools, read-only ones marked', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => [tool.name, tool.annotations?.readOnlyHint])).toEqual([['greet', true]]);
  });

  it('answers a call, and refuses bad arguments as an error result', async () => {
    const result = (await client.callTool({
      name: 'greet',
      arguments: { name: 'Hanako' },
    })) as CallToolResult;
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Hanako!' }]);
    const bad = (await client.callTool({ name: 'greet', arguments: {} })) as CallToolResult;
    expect(bad.isError).toBe(true);
  });
});
