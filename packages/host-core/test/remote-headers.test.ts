import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpConfigError, parseMcpConfig } from '../src/config/mcp-config.js';
import { McpClientManager } from '../src/mcp/client-manager.js';
import { startMcpFromEnvironment } from '../src/mcp/start-mcp.js';
import { recordingLogger, startStatelessServer } from './helpers.js';

describe('remote servers', () => {
  const seen: IncomingHttpHeaders[] = [];
  const calls: Array<[string, string | undefined]> = [];
  let remote: Awaited<ReturnType<typeof startStatelessServer>>;
  let url: string;
  beforeAll(async () => {
    // A stateless Streamable HTTP MCP server that records every request's headers.
    remote = await startStatelessServer((mcp, request) => {
      seen.push(request.headers);
      mcp.registerTool(
        'whoami',
        { inputSchema: z.object({ marker: z.string().optional() }) },
        async ({ marker }) => {
          if (marker) calls.push([marker, request.headers.authorization]);
          if (marker === 'slow') await new Promise((resolve) => setTimeout(resolve, 150));
          if (marker === 'leak') throw new Error(`backend rejected ${request.headers.authorization}`);
          return { content: [{ type: 'text', text: `auth=${request.headers.authorization ?? 'none'}` }] };
        },
      );
    });
    url = remote.url;
  });
  afterAll(() => remote.close());

  it('sends the configured headers (${VAR} filled from the environment when no token is given) on every request', async () => {
    const servers = parseMcpConfig(
      JSON.stringify({
        mcpServers: {
          remote: { url, headers: { Authorization: 'Bearer ${REMOTE_TOKEN}', 'X-Team': 'core' } },
        },
      }),
      'mcp_servers.json',
      { REMOTE_TOKEN: 'token-from-env' },
    );
    const manager = new McpClientManager({ env: { REMOTE_TOKEN: 'token-from-env' } });
    try {
      await manager.connect(servers);
      expect(manager.status()[0]?.state).toBe('connected');
      // The server received the credential; the tool output never carries it back.
      expect((await manager.callTool('mcp__remote__whoami', {})).text).toBe('auth=[REDACTED]');
      expect(seen.length).toBeGreaterThanOrEqual(3); // initialize, initialized, tools/list, tools/call
      for (const headers of seen) {
        expect(headers.authorization).toBe('Bearer token-from-env');
        expect(headers['x-team']).toBe('core');
      }
    } finally {
      await manager.close();
    }
  });

  it('per-request tokens fill the templates; concurrent calls never see each other’s; a missing one is named', async () => {
    const servers = parseMcpConfig(
      JSON.stringify({ mcpServers: { remote: { url, headers: { Authorization: 'Bearer ${user_token}' } } } }),
      'mcp_servers.json',
      {},
    );
    const manager = new McpClientManager({ env: {} });
    try {
      await manager.connect(servers);
      expect(manager.status()[0]?.state).toBe('connected');
      await Promise.all([
        manager.callTool(
          'mcp__remote__whoami',
          { marker: 'slow' },
          { tokens: { user_token: 'alice-token-1' } },
        ),
        manager.callTool(
          'mcp__remote__whoami',
          { marker: 'fast' },
          { tokens: { user_token: 'bob-token-2' } },
        ),
      ]);
      expect(Object.fromEntries(calls)).toMatchObject({
        slow: 'Bearer alice-token-1',
        fast: 'Bearer bob-token-2',
      });
      await expect(manager.callTool('mcp__remote__whoami', {})).rejects.toThrow(
        'needs credentials that were not supplied: ${user_token}',
      );
      // A server error that quotes the credential comes back redacted.
      const leak = await manager.callTool(
        'mcp__remote__whoami',
        { marker: 'leak' },
        { tokens: { user_token: 'carol-token-3' } },
      );
      expect(leak.isError).toBe(true);
      expect(leak.text).toBe('backend rejected Bearer [REDACTED]');
    } finally {
      await manager.close();
    }
  });

  it('MCP_SERVER_URL alone turns MCP on against that server, with MCP_SERVER_HEADERS on every request and never in a log', async () => {
    const secret = 'Bearer header-secret-0123';
    const env = {
      MCP_SERVER_URL: url,
      MCP_SERVER_HEADERS: JSON.stringify({ Authorization: secret }),
      MCP_SERVERS_CONFIG: '/nonexistent/mcp_servers.json',
    };
    const logger = recordingLogger();
    const before = seen.length;
    const manager = await startMcpFromEnvironment({ env, logger });
    try {
      expect(manager?.status().map((server) => [server.name, server.state])).toEqual([
        ['remote', 'connected'],
      ]);
      expect((await manager?.callTool('mcp__remote__whoami', {}))?.text).toBe('auth=[REDACTED]');
      expect(seen.slice(before).every((headers) => headers.authorization === secret)).toBe(true);
      expect(JSON.stringify(logger.lines)).not.toContain('header-secret-0123');
    } finally {
      await manager?.close();
    }
    // MCP_ENABLED=false still wins; a malformed MCP_SERVER_HEADERS is named.
    expect(await startMcpFromEnvironment({ env: { ...env, MCP_ENABLED: 'false' } })).toBeUndefined();
    const broken = startMcpFromEnvironment({
      env: { ...env, MCP_SERVER_HEADERS: 'Authorization: Bearer x' },
    });
    await expect(broken).rejects.toThrow(McpConfigError);
    await expect(broken).rejects.toThrow(
      /MCP_SERVER_HEADERS: expected a JSON object of header names and values/,
    );
  });
});
