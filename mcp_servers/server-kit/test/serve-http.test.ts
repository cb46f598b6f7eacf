import { request as httpRequest } from 'node:http';
import { Client, SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { parseServerCommandLine, serveHttp, silentLogger } from '../src/index.js';

/** A server with one tool that says which protocol revision the request spoke. */
function newServer(): McpServer {
  const server = new McpServer({ name: 'kit-test', version: '1.0.0' });
  server.registerTool('era', { description: 'Names the era of this request' }, async (context) => ({
    content: [{ type: 'text', text: context.mcpReq.envelope ? 'modern' : 'legacy' }],
  }));
  return server;
}

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text;

describe('serveHttp', () => {
  it('#45 one endpoint serves both eras: 2026-07-28 without sessions, 2025-11-25 with one, legacy SSE beside', async () => {
    const handle = await serveHttp({ host: '127.0.0.1', port: 0, logger: silentLogger, newServer });
    const clients: Client[] = [];
    try {
      const modern = new Client({ name: 'modern', version: '0' }, { versionNegotiation: { mode: 'auto' } });
      clients.push(modern);
      await modern.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
      expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect(textOf(await modern.callTool({ name: 'era', arguments: {} }))).toBe('modern');
      expect(handle.sessionCount()).toBe(0);

      const legacy = new Client({ name: 'legacy', version: '0' });
      clients.push(legacy);
      await legacy.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
      expect(legacy.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      expect(textOf(await legacy.callTool({ name: 'era', arguments: {} }))).toBe('legacy');
      expect(handle.sessionCount()).toBe(1);

      const sse = new Client({ name: 'sse', version: '0' });
      clients.push(sse);
      await sse.connect(new SSEClientTransport(new URL(`${handle.url}/sse`)));
      expect(textOf(await sse.callTool({ name: 'era', arguments: {} }))).toBe('legacy');
      expect(handle.sessionCount()).toBe(2);
    } finally {
      await Promise.allSettled(clients.map((client) => client.close()));
      await handle.close();
    }
  });

  it('refuses a foreign Host or Origin in either era, other paths with 404, a 2025 request without a session with 400', async () => {
    const handle = await serveHttp({ host: '127.0.0.1', port: 0, logger: silentLogger, newServer });
    const post = (headers: Record<string, string>, body: unknown, path = '/mcp') =>
      new Promise<number | undefined>((resolvePromise, reject) => {
        const request = httpRequest(
          new URL(path, handle.url),
          {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              ...headers,
            },
          },
          (response) => {
            response.resume();
            resolvePromise(response.statusCode);
          },
        );
        request.on('error', reject);
        request.end(JSON.stringify(body));
      });
    const discover = {
      jsonrpc: '2.0',
      id: 1,
      method: 'server/discover',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    };
    try {
      const modern = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' };
      expect(await post(modern, discover)).toBe(200);
      expect(await post({ ...modern, host: 'attacker.example' }, discover)).toBe(403);
      expect(await post({ ...modern, origin: 'http://attacker.example' }, discover)).toBe(403);
      expect(await post({}, discover, '/other')).toBe(404);
      expect(await post({}, { jsonrpc: '2.0', id: 2, method: 'tools/list' })).toBe(400);
    } finally {
      await handle.close();
    }
  });
});

describe('parseServerCommandLine', () => {
  it('parses the options every server shares and its own', () => {
    const options = { defaultPort: 3000, options: { docs: { type: 'string' as const } } };
    expect(parseServerCommandLine(['--http'], options)).toEqual({
      kind: 'serve',
      http: { host: '127.0.0.1', port: 3000 },
      values: {},
    });
    expect(
      parseServerCommandLine(['--http', '--port', '0', '--host', '::1', '--docs', 'd'], options),
    ).toEqual({
      kind: 'serve',
      http: { host: '::1', port: 0 },
      values: { docs: 'd' },
    });
    expect(parseServerCommandLine([], options)).toEqual({ kind: 'serve', values: {} });
    expect(parseServerCommandLine(['--version'], options)).toEqual({ kind: 'version' });
    for (const args of [
      ['--bogus'],
      ['--http', '--port', 'abc'],
      ['--http', '--port', ''],
      ['--port', '3000'],
      ['extra'],
    ])
      expect(parseServerCommandLine(args, options).kind, args.join(' ')).toBe('usage-error');
  });
});
