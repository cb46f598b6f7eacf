import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

const upstreamToken = 'upstream-secret-token-4242';
const bearer = 'remote-bearer-secret-9999';

// An HTTP "MCP server" that answers 401 quoting the Authorization header it received.
async function startQuotingServer(): Promise<{ url: string; server: Server }> {
  const server = createServer((incoming, response) => {
    response.writeHead(401, { 'content-type': 'text/plain' });
    response.end(`unauthorized: you sent "${incoming.headers.authorization}"`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/mcp`, server };
}

describe('hardening 1: /healthz never shows credentials', () => {
  let harness: Harness;
  let quoting: Awaited<ReturnType<typeof startQuotingServer>>;

  async function start(env: Record<string, string> = {}) {
    quoting = await startQuotingServer();
    harness = await startHarness({
      env,
      mcpEnv: { UPSTREAM_TOKEN: upstreamToken, REMOTE_BEARER: bearer },
      servers: {
        leaky: {
          command: process.execPath,
          args: [join(import.meta.dirname, 'fixtures', 'leaky-server.mjs')],
          env: { UPSTREAM_TOKEN: '${UPSTREAM_TOKEN}' },
        },
        quoting: { url: quoting.url, headers: { Authorization: 'Bearer ${REMOTE_BEARER}' } },
      },
    });
  }
  afterEach(async () => {
    await harness?.close();
    quoting?.server.close();
  });

  const health = async () => {
    const response = await request(`http://127.0.0.1:${harness.port}/healthz`);
    return { statusCode: response.statusCode, text: await response.body.text() };
  };

  it('by default: states and counts, no reasons, "degraded" naming the servers that are down', async () => {
    await start();
    const { statusCode, text } = await health();
    expect(statusCode).toBe(200);
    expect(text).not.toContain(upstreamToken);
    expect(text).not.toContain(bearer);
    const body = JSON.parse(text) as {
      status: string;
      mcp: { down: string[]; servers: Array<Record<string, unknown>> };
    };
    expect(body.status).toBe('degraded');
    expect(body.mcp.down.sort()).toEqual(['leaky', 'quoting']);
    expect(body.mcp.servers.every((server) => !('reason' in server))).toBe(true);
    expect(body.mcp.servers.find((server) => server.name === 'weather')).toMatchObject({
      state: 'connected',
    });
  });

  it('with HEALTH_DETAILS=true: the reasons, redacted — and the manager’s status() is redacted too', async () => {
    await start({ HEALTH_DETAILS: 'true' });
    const { text } = await health();
    const body = JSON.parse(text) as { mcp: { servers: Array<{ name: string; reason?: string }> } };
    const reasons = body.mcp.servers
      .filter((server) => server.reason)
      .map((server) => server.reason as string);
    expect(reasons.length).toBe(2);
    expect(reasons.join('\n')).toContain('[REDACTED]');
    expect(text).not.toContain(upstreamToken);
    expect(text).not.toContain(bearer);
    expect(JSON.stringify(harness.mcp?.status())).not.toMatch(new RegExp(`${upstreamToken}|${bearer}`));
  });
});

describe('hardening 1: in Socket Mode /healthz listens on loopback only', () => {
  let harness: Harness;
  afterEach(() => harness?.close());

  it('is reachable on 127.0.0.1 and refused on the machine’s other addresses', async () => {
    harness = await startHarness();
    const ok = await request(`http://127.0.0.1:${harness.port}/healthz`);
    expect(ok.statusCode).toBe(200);
    await ok.body.dump();
    const external = Object.values(networkInterfaces())
      .flat()
      .find((address) => address && address.family === 'IPv4' && !address.internal)?.address;
    if (external) {
      await expect(request(`http://${external}:${harness.port}/healthz`)).rejects.toMatchObject({
        code: 'ECONNREFUSED',
      });
    }
  });
});

/** Sends a POST declaring `declaredLength` bytes and some of them; resolves with the status line. */
function rawPost(port: number, declaredLength: number, part: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        `POST /slack/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${declaredLength}\r\n\r\n`,
      );
      socket.write(part);
    });
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n')) {
        socket.destroy();
        resolve(answer.split('\r\n')[0] as string);
      }
    });
    socket.on('error', (error) => (answer ? resolve(answer) : reject(error)));
    socket.setTimeout(10_000, () => {
      socket.destroy();
      reject(new Error('no answer'));
    });
  });
}

describe('hardening 5: /slack/events caps the body before reading it', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({
      env: { SLACK_APP_TOKEN: '', SLACK_SIGNING_SECRET: 'signing-secret-0123' },
    });
  }, 30_000);
  afterAll(() => harness?.close());

  it('answers 413 to an unsigned 50 MB POST (declared or chunked) and stays small', async () => {
    const before = process.memoryUsage().rss;
    const url = `http://127.0.0.1:${harness.port}/slack/events`;
    // Declared 50 MB: answered from the headers alone, before the body is read.
    const declared = await rawPost(harness.port, 50 * 1024 * 1024, Buffer.alloc(1024 * 1024, 0x61));
    expect(declared).toMatch(/^HTTP\/1\.1 413/);
    const chunk = Buffer.alloc(1024 * 1024, 0x62);
    async function* fiftyMegabytes() {
      for (let index = 0; index < 50; index++) yield chunk;
    }
    const chunked = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: fiftyMegabytes(),
    }).catch((error: { code?: string }) => ({ statusCode: error.code, body: undefined }));
    // Chunked: read up to the cap, then 413 (or the socket closed while the client was still sending).
    expect([413, 'UND_ERR_SOCKET', 'EPIPE', 'ECONNRESET']).toContain(chunked.statusCode);
    const grown = (process.memoryUsage().rss - before) / 1024 / 1024;
    // Buffering the body would add at least 50 MB; the cap reads at most 1 MB of it.
    expect(grown).toBeLessThan(40);
    // A normal-sized unsigned request still gets its 401.
    const small = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(small.statusCode).toBe(401);
    await small.body.dump();
  });
});
