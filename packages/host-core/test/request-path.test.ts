import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseMcpConfig } from '../src/config/mcp-config.js';
import { McpClientManager } from '../src/mcp/client-manager.js';
import { startStatelessServer } from './helpers.js';

describe('one request path: tool calls, resource reads and prompt gets alike', () => {
  const seen: Array<[string, string | undefined]> = [];
  let remote: Awaited<ReturnType<typeof startStatelessServer>>;
  let url: string;
  beforeAll(async () => {
    // A stateless Streamable HTTP server recording which credential each kind of request carried.
    remote = await startStatelessServer((mcp, request) => {
      const authorization = request.headers.authorization;
      mcp.registerTool('whoami', { inputSchema: z.object({}) }, async () => {
        seen.push(['tools/call', authorization]);
        return { content: [{ type: 'text', text: 'ok' }] };
      });
      mcp.registerResource('note', 'note://1', { mimeType: 'text/plain' }, async (uri) => {
        seen.push(['resources/read', authorization]);
        return { contents: [{ uri: uri.href, text: 'a note' }] };
      });
      mcp.registerPrompt('greet', { argsSchema: z.object({ name: z.string() }) }, ({ name }) => {
        seen.push(['prompts/get', authorization]);
        return { messages: [{ role: 'user', content: { type: 'text', text: `Greet ${name}` } }] };
      });
    });
    url = remote.url;
  });
  afterAll(() => remote.close());

  it('the caller’s token reaches the server for a tool call, a resource read and a prompt get', async () => {
    const servers = parseMcpConfig(
      JSON.stringify({ mcpServers: { remote: { url, headers: { Authorization: 'Bearer ${user_token}' } } } }),
      'mcp_servers.json',
      {},
    );
    const manager = new McpClientManager({ env: {} });
    try {
      await manager.connect(servers);
      const tokens = { user_token: 'person-token-777' };
      await manager.callTool('mcp__remote__whoami', {}, { tokens });
      expect((await manager.readResource('remote', 'note://1', { tokens })).text).toBe('a note');
      expect(
        (await manager.getPrompt('remote', 'greet', { name: 'Hanako' }, { tokens })).messages,
      ).toHaveLength(1);
      expect(seen).toEqual([
        ['tools/call', 'Bearer person-token-777'],
        ['resources/read', 'Bearer person-token-777'],
        ['prompts/get', 'Bearer person-token-777'],
      ]);
      // Without the token, each kind of request fails the same way, before anything is sent.
      for (const attempt of [
        manager.callTool('mcp__remote__whoami', {}),
        manager.readResource('remote', 'note://1'),
        manager.getPrompt('remote', 'greet', { name: 'x' }),
      ]) {
        await expect(attempt).rejects.toMatchObject({ code: 'MISSING_CREDENTIALS' });
      }
      expect(seen).toHaveLength(3);
    } finally {
      await manager.close();
    }
  });
});
