import { request as httpRequest } from 'node:http';
import { serveHttp } from '@ai-assistant/mcp-server-kit';
import { Client, SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { JmaClient } from '../src/jma/client.js';
import { createServer } from '../src/server.js';

const quiet = { info() {}, warn() {}, error() {} };

describe('hardening 8: HTTP sessions end', () => {
  it('sessions never deleted are capped (least recently used closed first) and expire when idle', async () => {
    const jma = new JmaClient({ baseUrl: 'http://127.0.0.1:9' });
    // Idleness is measured by this clock, not by how fast 30 clients connect on this machine.
    let clock = 0;
    const handle = await serveHttp({
      now: () => clock,
      host: '127.0.0.1',
      port: 0,
      logger: quiet,
      newServer: () => createServer({ jma }),
      maxSessions: 10,
      sessionIdleMs: 300,
    });
    const clients: Client[] = [];
    try {
      for (let index = 0; index < 30; index++) {
        const client = new Client({ name: 'session-test', version: '0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
        clients.push(client);
      }
      expect(handle.sessionCount()).toBe(10);
      clock += 299;
      await new Promise((resolve) => setTimeout(resolve, 400)); // a sweep runs: nothing is idle yet
      expect(handle.sessionCount()).toBe(10);
      clock += 10_000;
      const deadline = Date.now() + 5000;
      while (handle.sessionCount() > 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 25));
      expect(handle.sessionCount()).toBe(0);
    } finally {
      await Promise.allSettled(clients.map((client) => client.close()));
      await handle.close();
    }
  });

  it('the legacy HTTP+SSE endpoint (/mcp/sse): a tool call works; its sessions share the cap; a foreign Host is refused', async () => {
    const jma = new JmaClient({ baseUrl: 'http://127.0.0.1:9' });
    const handle = await serveHttp({
      host: '127.0.0.1',
      port: 0,
      logger: quiet,
      newServer: () => createServer({ jma }),
      maxSessions: 2,
    });
    const clients: Client[] = [];
    try {
      for (let index = 0; index < 3; index++) {
        const client = new Client({ name: 'sse-test', version: '0' });
        await client.connect(new SSEClientTransport(new URL(`${handle.url}/sse`)));
        clients.push(client);
      }
      const { tools } = await (clients.at(-1) as Client).listTools();
      expect(tools.map((tool) => tool.name)).toContain('get_weather');
      expect(handle.sessionCount()).toBe(2);
      const forged = await new Promise<number | undefined>((resolvePromise, reject) => {
        const request = httpRequest(
          `${handle.url}/sse`,
          { headers: { host: 'attacker.example' } },
          (response) => {
            response.resume();
            resolvePromise(response.statusCode);
          },
        );
        request.on('error', reject);
        request.end();
      });
      expect(forged).toBe(403);
      const unknown = await fetch(`${handle.url}/messages?sessionId=nope`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(unknown.status).toBe(404);
    } finally {
      await Promise.allSettled(clients.map((client) => client.close()));
      await handle.close();
    }
  });
});
