import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeJma, startFakeJma } from '../src/testing/fake-jma.js';
import { eraOptions, weatherServerScenarios } from './scenarios.js';
import { serverEnvironment, startHttpServer, stop } from './spawn.js';

describe('weather server', () => {
  for (const era of ['2025-11-25', '2026-07-28'] as const)
    weatherServerScenarios(
      `the built executable over Streamable HTTP (--http), protocol ${era}`,
      async () => {
        const jma = await startFakeJma();
        const { url, child } = await startHttpServer(serverEnvironment(jma.baseUrl));
        const client = new Client({ name: 'http-test', version: '0' }, eraOptions(era));
        await client.connect(new StreamableHTTPClientTransport(new URL(url)));
        expect(client.getNegotiatedProtocolVersion()).toBe(era);
        return {
          client,
          jma,
          async close() {
            await client.close();
            expect(await stop(child)).toBe(0);
            await jma.close();
          },
        };
      },
    );

  describe('HTTP endpoint guards', () => {
    let jma: FakeJma;
    let server: Awaited<ReturnType<typeof startHttpServer>>;
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    };
    const post = (path: string, headers: Record<string, string>, body: unknown) =>
      request(new URL(path, server.url).toString(), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify(body),
      });

    beforeAll(async () => {
      jma = await startFakeJma();
      server = await startHttpServer(serverEnvironment(jma.baseUrl));
    });
    afterAll(async () => {
      await stop(server.child);
      await jma.close();
    });

    it('refuses a foreign Host header or Origin (DNS-rebinding protection)', async () => {
      const badHost = await post('/mcp', { host: 'attacker.example' }, initialize);
      expect(badHost.statusCode).toBe(403);
      await badHost.body.dump();
      const badOrigin = await post('/mcp', { origin: 'http://attacker.example' }, initialize);
      expect(badOrigin.statusCode).toBe(403);
      await badOrigin.body.dump();
      const good = await post('/mcp', {}, initialize);
      expect(good.statusCode).toBe(200);
      expect(good.headers['mcp-session-id']).toBeTruthy();
      await good.body.dump();
    });

    it('answers other paths with 404 and a request without a session with 400', async () => {
      const elsewhere = await post('/other', {}, initialize);
      expect(elsewhere.statusCode).toBe(404);
      await elsewhere.body.dump();
      const noSession = await post('/mcp', {}, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
      expect(noSession.statusCode).toBe(400);
      await noSession.body.dump();
    });
  });
});
