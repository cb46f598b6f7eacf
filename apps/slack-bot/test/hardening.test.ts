import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { completion, listenOnLoopback, streamedText } from '@ai-assistant/test-kit';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { markdownToMrkdwn } from '../src/format/slack-text.js';
import { toolStatus } from '../src/slack/answer.js';
import { type Harness, startHarness, waitFor } from './harness.js';

const upstreamToken = 'upstream-secret-token-4242';
const bearer = 'remote-bearer-secret-9999';

// An HTTP "MCP server" that answers 401 quoting the Authorization header it received.
async function startQuotingServer(): Promise<{ url: string; server: Server }> {
  const server = createServer((incoming, response) => {
    response.writeHead(401, { 'content-type': 'text/plain' });
    response.end(`unauthorized: you sent "${incoming.headers.authorization}"`);
  });
  return { url: `${await listenOnLoopback(server)}/mcp`, server };
}

/** A stdio server printing its ${UPSTREAM_TOKEN} to stderr, and an HTTP server quoting its bearer back. */
function leakingServers(quotingUrl: string) {
  return {
    leaky: {
      command: process.execPath,
      args: [join(import.meta.dirname, 'fixtures', 'leaky-server.mjs')],
      env: { UPSTREAM_TOKEN: '${UPSTREAM_TOKEN}' },
    },
    quoting: { url: quotingUrl, headers: { Authorization: 'Bearer ${REMOTE_BEARER}' } },
  };
}

describe('hardening 1: /healthz never shows credentials', () => {
  let harness: Harness;
  let quoting: Awaited<ReturnType<typeof startQuotingServer>>;

  async function start(env: Record<string, string> = {}) {
    quoting = await startQuotingServer();
    harness = await startHarness({
      env,
      mcpEnv: { UPSTREAM_TOKEN: upstreamToken, REMOTE_BEARER: bearer },
      servers: leakingServers(quoting.url),
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
    // Both failing servers are retried meanwhile: wait for a report in which both are down, not one
    // caught reconnecting (a busy machine stretches each attempt).
    let report = await health();
    for (let tries = 0; tries < 600 && !/"down":\["[^\]]*","[^\]]*"\]/.test(report.text); tries++) {
      await new Promise((done) => setTimeout(done, 100));
      report = await health();
    }
    const { statusCode, text } = report;
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
    expect(JSON.stringify(harness.people.catalog())).not.toMatch(new RegExp(`${upstreamToken}|${bearer}`));
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
      body: Readable.from(fiftyMegabytes()),
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

// Everything a model (or a tool's text quoted by it) might try, to ping a channel or fake a link.
const tricks = [
  '[docs](https://example.com/a><!channel><x)',
  '`<!channel>` and `<!here>`',
  '```\n<!here> <@U0ADMIN>\n```',
  'plain <!channel> <!here> <!everyone> <@U0ADMIN> <#C0GENERAL> <!subteam^S0TEAM>',
  '<https://evil.example|https://slack.com>',
  '[https://slack.com](https://evil.example)',
  '[click](javascript:alert(1)) [x](https://ok.example|<!channel>)',
  '<b><!channel></b> &lt;!channel&gt; &#60;!here&#62;',
  '**<!channel>** _<@U0ADMIN>_ ~~<!here>~~',
  '| a | b |\n|---|---|\n| <!channel> | <@U0ADMIN> |',
  '> <!channel>\n- <!here>\n1. <@U0ADMIN>',
  '![<!channel>](https://img.example/a.png)',
].join('\n\n');

/** Slack would turn these into pings or links that hide their target. */
const unsafe = /<(?!https?:\/\/[^\s<>|]+(?:\|[^<>]*)?>)|<!|<@|<#/;

describe('hardening 4: model and tool text can never ping the channel or spoof a link', () => {
  let harness: Harness;
  afterEach(() => harness?.close());

  async function ask(text: string) {
    return (await harness.slack.mention('C400', text)).ts;
  }
  const posted = () =>
    harness.slack.calls
      .filter((call) => /^chat\.(postMessage|update|startStream|appendStream|stopStream)$/.test(call.method))
      .map((call) => String(call.args.text ?? '') + streamedText(call.args))
      .filter(Boolean);

  it('the converter escapes every trick in the catalogue', () => {
    const converted = markdownToMrkdwn(tricks);
    expect(converted).not.toMatch(unsafe);
    expect(converted).toContain('<https://img.example/a.png|&lt;!channel&gt;>'); // a real link, its label inert
    expect(converted).toContain('&lt;!channel&gt;');
    expect(markdownToMrkdwn('[ok](https://www.jma.go.jp/bosai/)')).toBe('<https://www.jma.go.jp/bosai/|ok>');
  });

  it('chat.postMessage and chat.update: the answer is posted escaped', async () => {
    harness = await startHarness({ env: { SLACK_STREAMING: 'false' } });
    harness.llm.respondWith((request) => completion(request, { text: tricks }));
    const ts = await ask('hello');
    await waitFor(() => posted().some((text) => text.includes('javascript')));
    expect(posted().filter((text) => unsafe.test(text))).toEqual([]);
    expect(harness.slack.thread('C400', ts).length).toBeGreaterThan(1);
  });

  it('streaming (chat.startStream / appendStream): every chunk is escaped', async () => {
    harness = await startHarness({ env: { SLACK_STREAMING: 'true' } });
    harness.llm.respondWith((request) => completion(request, { text: tricks }));
    await ask('hello');
    await waitFor(() => harness.slack.callsOf('chat.stopStream').length > 0);
    const streamed = harness.slack.calls
      .filter((call) => /Stream$/.test(call.method))
      .map((call) => streamedText(call.args))
      .join('');
    expect(streamed).toContain('&lt;!channel&gt;');
    expect(streamed).not.toMatch(/<!|<@|<#/);
    expect(posted().filter((text) => unsafe.test(text))).toEqual([]);
  });

  it('the error path: a vendor error quoting a ping is posted escaped', async () => {
    harness = await startHarness();
    harness.llm.respondWith(() => ({
      status: 400,
      json: { error: { message: 'bad request <!channel> <@U0ADMIN>', type: 'invalid_request_error' } },
    }));
    await ask('hello');
    await waitFor(() => posted().some((text) => text.includes('⚠️')));
    expect(posted().filter((text) => unsafe.test(text))).toEqual([]);
  });

  it('the progress line: a tool named lookup<!channel> is shown escaped', () => {
    const status = toolStatus({
      type: 'tool_start',
      callId: 'c1',
      name: 'mcp__x__lookup',
      tool: 'lookup<!channel>',
      server: 'x',
      arguments: {},
    });
    expect(status).toBe('🔧 `lookup&lt;!channel&gt;` を実行しています…');
  });
});

describe('hardening: no secret reaches logs, /healthz or Slack, whatever path it takes', () => {
  const secrets = {
    UPSTREAM_TOKEN: 'env-secret-for-stdio-0001',
    REMOTE_BEARER: 'bearer-secret-remote-0002',
    API_PASSWORD: 'basic-password-secret-0003',
    API_QUERY_KEY: 'query-key-secret-0004',
  };
  let api: Server;
  let apiBase: string;
  beforeAll(async () => {
    // Quotes everything it receives (headers, query string) back in a 200 body, as careless APIs do.
    api = createServer((incoming, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ youSent: { url: incoming.url, headers: incoming.headers } }));
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    const address = api.address();
    apiBase = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(() => api.close());

  for (const streaming of [false, true]) {
    it(`bearer, basic, query key, env and quoted secrets (${streaming ? 'streamed' : 'posted'} answers)`, async () => {
      const quoting = await startQuotingServer();
      const spec = {
        openapi: '3.0.3',
        paths: { '/whoami': { get: { operationId: 'whoami', security: [{ basic: [], key: [] }] } } },
        components: {
          securitySchemes: {
            basic: { type: 'http', scheme: 'basic' },
            key: { type: 'apiKey', in: 'query', name: 'api_key' },
          },
        },
      };
      const harness = await startHarness({
        env: { HEALTH_DETAILS: 'true', ...(streaming ? { SLACK_STREAMING: 'true' } : {}) },
        mcpEnv: secrets,
        servers: {
          ...leakingServers(quoting.url),
          api: {
            type: 'openapi',
            openapi_spec: spec,
            openapi_base_url: apiBase,
            security: { basic: 'robot:${API_PASSWORD}', key: '${API_QUERY_KEY}' },
          },
        },
      });
      try {
        // The model calls the API, then repeats whatever the tool returned.
        harness.llm.respondWith((request) => {
          const messages = request.body.messages as Array<{ role: string; content: string | null }>;
          const result = messages.find((message) => message.role === 'tool');
          if (result) return completion(request, { text: `The API said: ${result.content}` });
          return completion(request, { toolCall: { name: 'mcp__api__whoami', arguments: {} } });
        });
        await harness.slack.mention('C500', 'who am I?');
        await waitFor(() =>
          harness.slack.calls.some((call) =>
            (String(call.args.text ?? '') + streamedText(call.args)).includes('youSent'),
          ),
        );
        const health = await request(`http://127.0.0.1:${harness.port}/healthz`);
        const everything = JSON.stringify({
          slack: harness.slack.calls.map((call) => call.args),
          health: await health.body.text(),
          logs: harness.logger.lines,
          status: harness.people.catalog(),
        });
        expect(everything).toContain('[REDACTED]'); // the secrets really travelled these paths
        const forms = Object.values(secrets).flatMap((secret) => [
          secret,
          Buffer.from(secret).toString('base64'),
        ]);
        forms.push(Buffer.from(`robot:${secrets.API_PASSWORD}`).toString('base64'));
        for (const form of forms) expect(everything, `leaked ${form}`).not.toContain(form);
      } finally {
        await harness.close();
        quoting.server.close();
      }
    });
  }
});
