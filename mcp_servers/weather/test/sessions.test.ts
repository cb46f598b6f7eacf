import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { serveHttp } from '../src/http.js';
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
});
