import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Allowlist, guardedAgent, isForbiddenAddress } from '../src/address-guard.js';
import { createServer, type WebServerOptions } from '../src/server.js';

const entry = resolve(import.meta.dirname, '..', 'dist', 'index.js');

/** A loopback HTTP server answering with `handle`; its requests are kept. */
async function serve(handle: (request: IncomingMessage, response: ServerResponse) => void) {
  const requests: IncomingMessage[] = [];
  const server = createHttpServer((request, response) => {
    requests.push(request);
    handle(request, response);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    requests,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** The server in this process over an in-memory transport (the stdio tests below spawn the real one). */
async function connect(options: WebServerOptions, capabilities: Record<string, unknown> = {}) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createServer(options).connect(serverSide);
  const client = new Client({ name: 'test', version: '0' }, { capabilities });
  await client.connect(clientSide);
  return client;
}

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

describe('mcp-server-web over stdio (the built executable)', () => {
  it('offers web_search, fetch_page and analyze_sentiment, all read-only; without a backend search says what to set', async () => {
    const client = new Client({ name: 'test', version: '0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [entry],
        env: { PATH: process.env.PATH ?? '' },
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => [tool.name, tool.annotations?.readOnlyHint])).toEqual([
        ['web_search', true],
        ['fetch_page', true],
        ['analyze_sentiment', true],
      ]);
      const result = await call(client, 'web_search', { query: 'mcp' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/set WEB_SEARCH_BACKEND/);
    } finally {
      await client.close();
    }
  });
});

describe('web_search backends, each against a loopback fake in its API’s wire format', () => {
  const key = 'search-api-key-0123456789';
  let api: Awaited<ReturnType<typeof serve>>;
  const bodies: string[] = [];
  beforeAll(async () => {
    api = await serve((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        bodies.push(body);
        const url = new URL(request.url ?? '/', 'http://x');
        const json = (value: unknown) => {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify(value));
        };
        if (url.pathname === '/search' && request.method === 'GET')
          return json({
            results: [{ title: 'SearXNG hit', url: 'https://a.example/1', content: 'from searxng' }],
          });
        if (url.pathname === '/res/v1/web/search')
          return request.headers['x-subscription-token'] === key
            ? json({
                web: {
                  results: [{ title: 'Brave hit', url: 'https://b.example/1', description: 'from brave' }],
                },
              })
            : void response.writeHead(401).end();
        if (url.pathname === '/search' && request.method === 'POST')
          return request.headers.authorization === `Bearer ${key}`
            ? json({
                results: [
                  { title: 'Tavily hit', url: 'https://t.example/1', content: 'from tavily', score: 0.9 },
                ],
              })
            : void response.writeHead(401).end();
        if (url.pathname === '/')
          return json({
            Heading: 'Model Context Protocol',
            AbstractText: 'an open protocol',
            AbstractURL: 'https://d.example/mcp',
            RelatedTopics: [
              { Text: 'MCP servers - tools for models', FirstURL: 'https://d.example/servers' },
              {
                Name: 'Group',
                Topics: [{ Text: 'MCP hosts - chat apps', FirstURL: 'https://d.example/hosts' }],
              },
            ],
          });
        response.writeHead(404);
        response.end();
      });
    });
  });
  afterAll(() => api.close());

  const base = () => `http://127.0.0.1:${api.port}/`;

  it('SearXNG (GET /search?format=json, no key)', async () => {
    const client = await connect({ search: { backend: 'searxng', url: base() } });
    const result = await call(client, 'web_search', { query: 'mcp', limit: 3 });
    expect(result.structuredContent).toEqual({
      backend: 'searxng',
      results: [{ title: 'SearXNG hit', url: 'https://a.example/1', snippet: 'from searxng' }],
    });
    expect(api.requests.at(-1)?.url).toBe('/search?q=mcp&format=json');
    // source: the seed's google | bing | duckduckgo, as SearXNG's engines parameter.
    await call(client, 'web_search', { query: 'mcp', source: 'Google' });
    expect(api.requests.at(-1)?.url).toBe('/search?q=mcp&format=json&engines=google');
  });

  it('source with a backend that searches only its own index: its own name works, another is a clear error, nothing is asked', async () => {
    const client = await connect({ search: { backend: 'duckduckgo', url: base() } });
    expect((await call(client, 'web_search', { query: 'mcp', source: 'duckduckgo' })).isError).toBeFalsy();
    const before = api.requests.length;
    const refused = await call(client, 'web_search', { query: 'mcp', source: 'bing' });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('the duckduckgo backend searches only its own index');
    expect(textOf(refused)).toContain('WEB_SEARCH_BACKEND=searxng');
    expect(api.requests.length).toBe(before);
  });

  it('Brave (X-Subscription-Token) and Tavily (Bearer, JSON body); a wrong key is an error without the key', async () => {
    const braveClient = await connect({ search: { backend: 'brave', url: base(), apiKey: key } });
    expect(textOf(await call(braveClient, 'web_search', { query: 'mcp' }))).toContain('Brave hit');
    const tavilyClient = await connect({ search: { backend: 'tavily', url: base(), apiKey: key } });
    expect(textOf(await call(tavilyClient, 'web_search', { query: 'mcp', limit: 2 }))).toContain(
      'Tavily hit',
    );
    expect(JSON.parse(bodies.at(-1) ?? '{}')).toMatchObject({ query: 'mcp', max_results: 2 });
    const wrong = await connect({ search: { backend: 'brave', url: base(), apiKey: 'wrong-key-000000000' } });
    const refused = await call(wrong, 'web_search', { query: 'mcp' });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/answered HTTP 401/);
    expect(textOf(refused)).not.toContain('wrong-key');
    const missing = await connect({ search: { backend: 'tavily', url: base() } });
    expect(textOf(await call(missing, 'web_search', { query: 'x' }))).toMatch(/needs WEB_SEARCH_API_KEY/);
  });

  it('DuckDuckGo Instant Answer (abstract and related topics, grouped ones too)', async () => {
    const client = await connect({ search: { backend: 'duckduckgo', url: base() } });
    const result = await call(client, 'web_search', { query: 'mcp' });
    expect(
      (result.structuredContent as { results: Array<{ url: string }> }).results.map((hit) => hit.url),
    ).toEqual(['https://d.example/mcp', 'https://d.example/servers', 'https://d.example/hosts']);
  });
});

describe('fetch_page against hostile pages and addresses', () => {
  let site: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    site = await serve((request, response) => {
      const path = request.url ?? '/';
      if (path === '/robots.txt') {
        response.writeHead(200, { 'content-type': 'text/plain' });
        return response.end('User-agent: *\nDisallow: /private\n');
      }
      if (path === '/article') {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return response.end(
          '<html><head><title>Umbrellas</title></head><body><nav>menu</nav><article><h1>Umbrellas</h1><p>Take an umbrella when the chance of rain is 30 percent or more. It is a simple rule that works well in Tokyo.</p><p>Folding umbrellas fit in a bag.</p></article></body></html>',
        );
      }
      if (path === '/to-metadata') {
        response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
        return response.end();
      }
      if (path === '/to-loopback-literal') {
        response.writeHead(302, { location: `http://127.0.0.1:${site.port}/article` });
        return response.end();
      }
      if (path === '/huge') {
        // 50 MB, streamed: the reader must stop at its cap.
        response.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(1024 * 1024, 'a');
        let sent = 0;
        const more = () => {
          while (sent < 50) {
            sent += 1;
            if (!response.write(chunk)) return void response.once('drain', more);
          }
          response.end();
        };
        response.on('close', () => {
          sent = 50;
        });
        return more();
      }
      if (path === '/never-ends') {
        response.writeHead(200, { 'content-type': 'text/html' });
        const timer = setInterval(() => response.write('<p>still going</p>'), 50);
        response.on('close', () => clearInterval(timer));
        return;
      }
      if (path === '/image') {
        response.writeHead(200, { 'content-type': 'image/png' });
        return response.end(Buffer.alloc(10));
      }
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<p>fine</p>');
    });
  });
  afterAll(() => site.close());

  // The test pages live on loopback: reachable only through the allowlist, under the name "localhost".
  const url = (path: string) => `http://localhost:${site.port}${path}`;
  const allowed = () => connect({ allow: ['localhost'], limits: { timeoutMs: 1500 } });

  it('without an allowlist, loopback is refused, by literal and by name; so is the metadata address', async () => {
    const client = await connect({});
    for (const target of [
      `http://127.0.0.1:${site.port}/article`,
      url('/article'),
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:127.0.0.1]/',
      'file:///etc/passwd',
    ]) {
      const result = await call(client, 'fetch_page', { url: target });
      expect(result.isError, target).toBe(true);
      expect(textOf(result), target).toMatch(/refused or failed/);
    }
    expect(site.requests.some((request) => request.url === '/article')).toBe(false);
  });

  it('an allowed page is read as text (Readability), its title kept', async () => {
    const result = await call(await allowed(), 'fetch_page', { url: url('/article') });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toMatch(/^# Umbrellas/);
    expect(textOf(result)).toContain('30 percent or more');
    expect(result.structuredContent).toMatchObject({ title: 'Umbrellas', truncated: false });
  });

  it('redirects are checked again: to 169.254.169.254, or to a loopback literal the allowlist does not name', async () => {
    const client = await allowed();
    expect(textOf(await call(client, 'fetch_page', { url: url('/to-metadata') }))).toMatch(
      /169\.254\.169\.254 is a private, loopback, link-local or metadata address/,
    );
    expect(textOf(await call(client, 'fetch_page', { url: url('/to-loopback-literal') }))).toMatch(
      /127\.0\.0\.1 is a private, loopback, link-local or metadata address/,
    );
  });

  it('a 50 MB page is cut at the size limit; a page that never ends hits the time limit', async () => {
    const client = await allowed();
    const huge = await call(client, 'fetch_page', { url: url('/huge') });
    expect(huge.structuredContent).toMatchObject({ truncated: true });
    expect(textOf(huge).length).toBeLessThan(2 * 1024 * 1024 + 100);
    const endless = await call(client, 'fetch_page', { url: url('/never-ends') });
    expect(endless.isError).toBe(true);
    expect(textOf(endless)).toMatch(/took longer than 1500 ms/);
  });

  it('robots.txt is honoured; a non-page content type is refused', async () => {
    const client = await allowed();
    expect(textOf(await call(client, 'fetch_page', { url: url('/private/report') }))).toMatch(
      /robots\.txt does not allow fetching \/private\/report/,
    );
    expect(textOf(await call(client, 'fetch_page', { url: url('/image') }))).toMatch(
      /not a page to read: image\/png/,
    );
  });

  it('#43.8 a robots.txt that redirects to a private address is not followed there; one that redirects within the site is', async () => {
    // Loopback stands in for the private network: the page is reached as "localhost" (allowed), the
    // redirect goes to the literal 127.0.0.1, which the allowlist does not name.
    const inside = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('User-agent: *\nDisallow: /\n');
    });
    const outside = await serve((request, response) => {
      if (request.url === '/robots.txt') {
        response.writeHead(302, { location: `http://127.0.0.1:${inside.port}/robots.txt` });
        return response.end();
      }
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html><head><title>News</title></head><body><p>public page</p></body></html>');
    });
    const moved = await serve((request, response) => {
      if (request.url === '/robots.txt') {
        response.writeHead(301, { location: '/policies/robots.txt' });
        return response.end();
      }
      if (request.url === '/policies/robots.txt') {
        response.writeHead(200, { 'content-type': 'text/plain' });
        return response.end('User-agent: *\nDisallow: /drafts\n');
      }
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<p>draft</p>');
    });
    try {
      const client = await allowed();
      const page = await call(client, 'fetch_page', { url: `http://localhost:${outside.port}/news` });
      expect(inside.requests.map((request) => request.url)).toEqual([]);
      expect(page.isError, textOf(page)).toBeFalsy();
      expect(textOf(page)).toContain('public page');
      expect(
        textOf(await call(client, 'fetch_page', { url: `http://localhost:${moved.port}/drafts/1` })),
      ).toMatch(/robots\.txt does not allow fetching \/drafts\/1/);
    } finally {
      await Promise.all([inside.close(), outside.close(), moved.close()]);
    }
  });

  it('the address check happens at connect time too: a name that resolves to loopback is refused by the agent', async () => {
    const failure = await fetch(url('/article'), { dispatcher: guardedAgent(new Allowlist()) }).then(
      () => undefined,
      (error: { cause?: Error }) => error.cause,
    );
    expect(failure?.name).toBe('ForbiddenAddressError');
    expect(failure?.message).toMatch(/localhost resolves to (127\.0\.0\.1|::1)/);
    expect(
      [
        '10.1.2.3',
        '172.20.0.1',
        '192.168.1.1',
        '100.64.0.1',
        'fe80::1',
        'fd00:ec2::254',
        '::ffff:7f00:1',
      ].every(isForbiddenAddress),
    ).toBe(true);
    expect(['93.184.216.34', '2606:4700::1111'].some(isForbiddenAddress)).toBe(false);
  });

  it('#43.22 IPv4-compatible (::/96) and IPv4-translated (::ffff:0:0:0/96) addresses are refused too', async () => {
    for (const address of ['::7f00:1', '::127.0.0.1', '::ffff:0:7f00:1', '::ffff:0:127.0.0.1', '::8.8.8.8'])
      expect(isForbiddenAddress(address), address).toBe(true);
    expect(isForbiddenAddress('::ffff:93.184.216.34')).toBe(false);
    const client = await connect({});
    for (const target of ['http://[::127.0.0.1]/', 'http://[::ffff:0:127.0.0.1]/']) {
      const result = await call(client, 'fetch_page', { url: target });
      expect(textOf(result), target).toMatch(/private, loopback, link-local or metadata address/);
    }
  });
});

describe('analyze_sentiment through MCP sampling', () => {
  it("asks the host's model and returns its label; a host without sampling gets a clear error", async () => {
    const withSampling = await connect({}, { sampling: {} });
    const asked: string[] = [];
    withSampling.setRequestHandler('sampling/createMessage', async (request) => {
      const content = request.params.messages[0]?.content as { text?: string };
      asked.push(content.text ?? '');
      return {
        role: 'assistant',
        model: 'host-model',
        content: { type: 'text', text: '{"label": "positive", "reason": "it praises the service"}' },
      };
    });
    const result = await call(withSampling, 'analyze_sentiment', { text: 'The support team was wonderful.' });
    expect(result.structuredContent).toEqual({ label: 'positive', reason: 'it praises the service' });
    expect(asked).toEqual(['The support team was wonderful.']);

    const without = await connect({});
    const refused = await call(without, 'analyze_sentiment', { text: 'hello' });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/this host does not offer sampling/);
  });
});

/** Starts the built executable with `--http --port 0`; resolves with the URL its "listening" log line names. */
function startHttp(): Promise<{ url: string; child: ChildProcess; stderr: () => string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [entry, '--http', '--port', '0'], {
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const url = /"msg":"listening","url":"([^"]+)"/.exec(stderr)?.[1];
      if (url) resolvePromise({ url, child, stderr: () => stderr });
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      reject(new Error(`mcp-server-web exited (${code}) before listening: ${stderr}`)),
    );
  });
}

describe('#45 one shape: --version, --http, both protocol eras', () => {
  it('--version prints the package version; a bad flag is a usage error (exit 2)', () => {
    const version = spawnSync(process.execPath, [entry, '--version'], { encoding: 'utf8' });
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toBe(
      (
        JSON.parse(readFileSync(resolve(import.meta.dirname, '..', 'package.json'), 'utf8')) as {
          version: string;
        }
      ).version,
    );
    const bad = spawnSync(process.execPath, [entry, '--port', '1'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--port and --host only apply with --http[\s\S]*Usage: mcp-server-web/);
  });

  it('over --http, 2025-11-25 and 2026-07-28 clients both get the tools and sentiment (sampling, or input_required)', async () => {
    const server = await startHttp();
    const clients: Client[] = [];
    try {
      for (const era of ['2025-11-25', '2026-07-28'] as const) {
        const client = new Client(
          { name: 'http-test', version: '0' },
          {
            capabilities: { sampling: {} },
            ...(era === '2026-07-28' ? { versionNegotiation: { mode: 'auto' as const } } : {}),
          },
        );
        clients.push(client);
        client.setRequestHandler('sampling/createMessage', async () => ({
          role: 'assistant',
          model: 'host-model',
          content: { type: 'text', text: '{"label": "negative", "reason": "it complains"}' },
        }));
        await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
        expect(client.getNegotiatedProtocolVersion()).toBe(era);
        const { tools } = await client.listTools();
        expect(
          tools.map((tool) => tool.name),
          era,
        ).toEqual(['web_search', 'fetch_page', 'analyze_sentiment']);
        const result = await call(client, 'analyze_sentiment', { text: 'The train was late again.' });
        expect(result.structuredContent, era).toEqual({ label: 'negative', reason: 'it complains' });
      }
      // Logs are JSON lines on stderr, never on stdout (which stdio keeps for the protocol).
      expect(server.stderr()).toContain('"msg":"listening"');
    } finally {
      await Promise.allSettled(clients.map((client) => client.close()));
      server.child.kill('SIGTERM');
      await once(server.child, 'exit');
    }
  });
});
