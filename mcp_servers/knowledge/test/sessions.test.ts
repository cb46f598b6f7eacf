import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type HttpHandle, serveHttp } from '@ai-assistant/mcp-server-kit';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KnowledgeBase } from '../src/knowledge-base.js';
import { sessionServers } from '../src/server.js';

const quiet = { info() {}, warn() {}, error() {} };

async function until(check: () => boolean, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return check();
}

describe('hardening 8: HTTP sessions end', () => {
  let folder: string;
  let knowledge: KnowledgeBase;
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'kb-sessions-'));
    writeFileSync(join(folder, 'a.md'), '# A\n\nsome text\n');
    knowledge = new KnowledgeBase(folder, quiet);
    await knowledge.rebuild();
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true, maxRetries: 5 }));

  /** The knowledge server over HTTP in this process, with its per-session MCP servers. */
  async function serve(limits: { maxSessions?: number; sessionIdleMs?: number; now?: () => number } = {}) {
    const servers = sessionServers(knowledge);
    const handle = await serveHttp({
      host: '127.0.0.1',
      port: 0,
      logger: quiet,
      newServer: servers.newServer,
      ...limits,
    });
    return { servers, handle };
  }

  async function open(handle: HttpHandle) {
    const transport = new StreamableHTTPClientTransport(new URL(handle.url));
    const client = new Client({ name: 'session-test', version: '0' });
    await client.connect(transport);
    return { client, transport };
  }

  it('a session closed with DELETE frees its transport and its MCP server (200 sessions)', async () => {
    const servers = sessionServers(knowledge);
    const handle = await serveHttp({
      host: '127.0.0.1',
      port: 0,
      logger: quiet,
      newServer: servers.newServer,
    });
    try {
      for (let index = 0; index < 200; index++) {
        const { client, transport } = await open(handle);
        await transport.terminateSession();
        await client.close();
      }
      expect(await until(() => handle.sessionCount() === 0 && servers.size() === 0)).toBe(true);
    } finally {
      await handle.close();
    }
  });

  it('live sessions are capped: beyond maxSessions the least recently used is closed', async () => {
    const { servers, handle } = await serve({ maxSessions: 20 });
    const clients: Client[] = [];
    try {
      for (let index = 0; index < 50; index++) clients.push((await open(handle)).client);
      expect(handle.sessionCount()).toBe(20);
      expect(await until(() => servers.size() === 20)).toBe(true);
      // The newest still works; the first, evicted, is told its session is gone.
      expect((await clients[49]?.listTools())?.tools.length).toBeGreaterThan(0);
      await expect(clients[0]?.listTools()).rejects.toThrow(/404|session/i);
    } finally {
      await Promise.allSettled(clients.map((client) => client.close()));
      await handle.close();
    }
  });

  it('a refused initialize keeps nothing: 300 with the wrong Accept header leave no server object', async () => {
    const { servers, handle } = await serve();
    try {
      const initialize = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'probe', version: '0' },
        },
      };
      for (let index = 0; index < 300; index++) {
        const response = await fetch(handle.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify(initialize),
        });
        expect(response.status).toBe(406);
        await response.body?.cancel();
      }
      // Before: 300 McpServer objects kept with no session.
      expect(handle.sessionCount()).toBe(0);
      expect(servers.size()).toBe(0);
      // A proper client still gets its session.
      const { client } = await open(handle);
      expect(servers.size()).toBe(1);
      await client.close();
    } finally {
      await handle.close();
    }
  });

  it('#45 2026-07-28 requests keep no session and no server object (one instance per request, closed after it)', async () => {
    const { servers, handle } = await serve();
    const client = new Client({ name: 'modern', version: '0' }, { versionNegotiation: { mode: 'auto' } });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      for (let index = 0; index < 100; index++) await client.listTools();
      expect(handle.sessionCount()).toBe(0);
      expect(await until(() => servers.size() === 0)).toBe(true);
    } finally {
      await client.close();
      await handle.close();
    }
  });

  it('an idle session expires', async () => {
    let clock = 0;
    const { servers, handle } = await serve({ sessionIdleMs: 100, now: () => clock });
    try {
      const { client } = await open(handle);
      // Idle by the clock only: however slow this machine, nothing expires before it moves.
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(handle.sessionCount()).toBe(1);
      clock += 101;
      expect(await until(() => handle.sessionCount() === 0 && servers.size() === 0)).toBe(true);
      await client.close();
    } finally {
      await handle.close();
    }
  });
});
