import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseMcpConfig } from '../src/config/mcp-config.js';
import { McpClientManager } from '../src/mcp/client-manager.js';

describe('remote servers', () => {
  const seen: IncomingHttpHeaders[] = [];
  let server: Server;
  let url: string;
  beforeAll(async () => {
    // A stateless Streamable HTTP MCP server that records every request's headers.
    server = createServer(async (request, response) => {
      seen.push(request.headers);
      const mcp = new McpServer({ name: 'remote', version: '1.0.0' });
      mcp.registerTool('whoami', { inputSchema: { verbose: z.boolean().optional() } }, async () => ({
        content: [{ type: 'text', text: `auth=${request.headers.authorization ?? 'none'}` }],
      }));
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      response.on('close', () => void transport.close());
      await mcp.connect(transport);
      await transport.handleRequest(request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/mcp`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('sends the configured headers (with ${VAR} filled from the environment) on every request', async () => {
    const servers = parseMcpConfig(
      JSON.stringify({
        mcpServers: {
          remote: { url, headers: { Authorization: 'Bearer ${REMOTE_TOKEN}', 'X-Team': 'core' } },
        },
      }),
      'mcp_servers.json',
      { REMOTE_TOKEN: 'token-from-env' },
    );
    const manager = new McpClientManager();
    try {
      await manager.connect(servers);
      expect(manager.status()[0]?.state).toBe('connected');
      expect((await manager.callTool('mcp__remote__whoami', {})).text).toBe('auth=Bearer token-from-env');
      expect(seen.length).toBeGreaterThanOrEqual(3); // initialize, initialized, tools/list, tools/call
      for (const headers of seen) {
        expect(headers.authorization).toBe('Bearer token-from-env');
        expect(headers['x-team']).toBe('core');
      }
    } finally {
      await manager.close();
    }
  });
});
