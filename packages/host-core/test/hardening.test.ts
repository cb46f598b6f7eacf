import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseMcpConfig } from '../src/config/mcp-config.js';
import { McpClientManager } from '../src/mcp/client-manager.js';
import { Redactor } from '../src/redaction.js';
import { fixtures, listenOnLoopback, recordingLogger } from './helpers.js';

/** A loopback REST API that logs every request and lets each test decide the answer. */
async function startApi(answer: (request: IncomingMessage) => { status: number; body: string | Buffer }) {
  const seen: Array<{ method: string; url: string; authorization?: string }> = [];
  const server: Server = createServer((request, response) => {
    seen.push({
      method: request.method ?? '',
      url: request.url ?? '',
      authorization: request.headers.authorization,
    });
    const { status, body } = answer(request);
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(body);
  });
  const base = await listenOnLoopback(server);
  return {
    base,
    seen,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

const basicSpec = {
  openapi: '3.0.3',
  paths: {
    '/me': { get: { operationId: 'me', security: [{ basic: [] }] } },
    '/repos/{owner}/{repo}': {
      get: {
        operationId: 'repo',
        security: [{ basic: [] }],
        parameters: [
          { name: 'owner', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'repo', in: 'path', required: true, schema: { type: 'string' } },
        ],
      },
    },
  },
  components: { securitySchemes: { basic: { type: 'http', scheme: 'basic' } } },
};

function openApiManager(base: string, env: NodeJS.ProcessEnv, security: Record<string, string>) {
  const servers = parseMcpConfig(
    JSON.stringify({
      mcpServers: {
        api: { type: 'openapi', openapi_spec: basicSpec, openapi_base_url: `${base}/api/v1`, security },
      },
    }),
    join(fixtures, 'mcp_servers.json'),
    env,
  );
  return { manager: new McpClientManager({ env, connectTimeoutMs: 5000 }), servers };
}

describe('hardening 3: every form of a secret is redacted', () => {
  let api: Awaited<ReturnType<typeof startApi>>;
  let manager: McpClientManager | undefined;
  beforeAll(async () => {
    // A careless API: 403 quoting the Authorization header, and the decoded credentials beside it.
    api = await startApi((request) => {
      const header = request.headers.authorization ?? '';
      const decoded = Buffer.from(header.replace(/^Basic /, ''), 'base64').toString('utf8');
      return {
        status: 403,
        body: JSON.stringify({ error: `forbidden for ${header}`, raw: header.slice(6), decoded }),
      };
    });
  });
  afterAll(() => api.close());
  afterEach(() => manager?.close());

  it('HTTP Basic from the config: the base64 of user:password never reaches the tool result', async () => {
    const password = 'wonderland-password-77';
    const made = openApiManager(api.base, { API_PASSWORD: password }, { basic: 'alice:${API_PASSWORD}' });
    manager = made.manager;
    await manager.connect(made.servers);
    const result = await manager.callTool('mcp__api__me', {});
    const base64 = Buffer.from(`alice:${password}`).toString('base64');
    expect(api.seen.at(-1)?.authorization).toBe(`Basic ${base64}`); // the request really carried it
    expect(result.isError).toBe(true);
    expect(result.text).toContain('[REDACTED]');
    expect(result.text).not.toContain(base64);
    expect(result.text).not.toContain(password);
  });

  it('HTTP Basic from a per-request token: redacted in the result as well', async () => {
    const made = openApiManager(api.base, {}, { basic: '${basic_token}' });
    manager = made.manager;
    await manager.connect(made.servers);
    const token = 'bob:per-request-pass-88';
    const result = await manager.callTool('mcp__api__me', {}, { tokens: { basic_token: token } });
    expect(result.text).not.toContain(Buffer.from(token).toString('base64'));
    expect(result.text).not.toContain('per-request-pass-88');
  });

  it('environment and config secrets are pinned: 20 000 per-request tokens never evict them', () => {
    const redactor = new Redactor(['environment-secret-1234']);
    redactor.pin(['configured-header-secret-5678']);
    for (let index = 0; index < 20_000; index++) redactor.add([`request-token-${index}-abcdef`]);
    expect(redactor.redact('environment-secret-1234 configured-header-secret-5678')).toBe(
      '[REDACTED] [REDACTED]',
    );
    // Per-request tokens are hidden in the logs (their own output is redacted with them as `extra`).
    expect(redactor.redactForLog('request-token-19999-abcdef')).toBe('[REDACTED]');
    expect(redactor.redactForLog('request-token-0-abcdef')).toBe('request-token-0-abcdef'); // the oldest went
    expect(redactor.redactForLog('environment-secret-1234')).toBe('[REDACTED]');
    expect(redactor.redact('request-token-19999-abcdef')).toBe('request-token-19999-abcdef');
    expect(redactor.redact('x request-token-5-abcdef', ['request-token-5-abcdef'])).toBe('x [REDACTED]');
    expect(redactor.redact(Buffer.from('environment-secret-1234').toString('base64'))).toBe('[REDACTED]');
  });
});

describe('hardening 7: OpenAPI path parameters cannot leave the base path', () => {
  let api: Awaited<ReturnType<typeof startApi>>;
  let manager: McpClientManager | undefined;
  beforeAll(async () => {
    api = await startApi(() => ({ status: 200, body: '{"ok":true}' }));
  });
  afterAll(() => api.close());
  afterEach(() => manager?.close());

  it('refuses "." and ".." (and their encodings) with a clear error; nothing is sent', async () => {
    const made = openApiManager(
      api.base,
      { API_PASSWORD: 'dot-segment-pass-99' },
      { basic: 'u:${API_PASSWORD}' },
    );
    manager = made.manager;
    await manager.connect(made.servers);
    const before = api.seen.length;
    for (const args of [
      { owner: '..', repo: '..' },
      { owner: '..', repo: 'admin' },
      { owner: '.', repo: 'x' },
    ]) {
      const result = await manager.callTool('mcp__api__repo', args);
      expect(result.isError, JSON.stringify(args)).toBe(true);
      expect(result.text).toMatch(
        /path parameter "owner" may not be "\.", "\.\." or contain "\/"|outside the API's base path/,
      );
    }
    expect(api.seen.length).toBe(before);
    const fine = await manager.callTool('mcp__api__repo', { owner: 'octo', repo: 'hello.world' });
    expect(fine.isError).toBe(false);
    expect(api.seen.at(-1)?.url).toBe('/api/v1/repos/octo/hello.world');
  });
});

/** Streams `megabytes` MB of a JSON string without holding it in memory. */
function streamHuge(
  response: import('node:http').ServerResponse,
  prefix: string,
  megabytes: number,
  suffix: string,
) {
  const chunk = Buffer.alloc(1024 * 1024, 0x61);
  response.write(prefix);
  let sent = 0;
  const pump = () => {
    while (sent < megabytes) {
      sent++;
      if (!response.write(chunk)) return void response.once('drain', pump);
    }
    response.end(suffix);
  };
  response.on('error', () => {});
  pump();
}

describe('hardening 6: HTTP responses are read under a byte cap', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    // One loopback server: a REST endpoint and a minimal Streamable HTTP MCP server, both able to answer 100 MB.
    server = createServer((request, response) => {
      if (request.url?.startsWith('/api/')) {
        response.writeHead(200, { 'content-type': 'application/json' });
        return streamHuge(response, '{"data":"', 100, '"}');
      }
      let text = '';
      request.on('data', (chunk) => {
        text += chunk;
      });
      request.on('end', () => {
        const message = JSON.parse(text || '{}') as {
          id?: number;
          method?: string;
          params?: { name?: string };
        };
        if (message.id === undefined) {
          response.writeHead(202);
          return response.end();
        }
        const reply = (result: unknown) => {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
        };
        if (message.method === 'initialize')
          return reply({
            protocolVersion: '2025-06-18',
            capabilities: { tools: {} },
            serverInfo: { name: 'big', version: '1' },
          });
        if (message.method === 'tools/list')
          return reply({
            tools: ['big', 'small'].map((name) => ({
              name,
              inputSchema: { type: 'object', properties: {} },
            })),
          });
        if (message.method === 'tools/call' && message.params?.name === 'small')
          return reply({ content: [{ type: 'text', text: 'still here' }] });
        // A 2025 server: the era probe (`server/discover`) is a method it does not know.
        if (message.method !== 'tools/call') {
          response.writeHead(200, { 'content-type': 'application/json' });
          return response.end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: message.id,
              error: { code: -32601, message: 'Method not found' },
            }),
          );
        }
        response.writeHead(200, { 'content-type': 'application/json' });
        streamHuge(
          response,
          `{"jsonrpc":"2.0","id":${message.id},"result":{"content":[{"type":"text","text":"`,
          100,
          '"}]}}',
        );
      });
    });
    base = await listenOnLoopback(server);
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('an OpenAPI endpoint answering 100 MB becomes a clear isError result; the host does not buffer it', async () => {
    const spec = { openapi: '3.0.3', paths: { '/huge': { get: { operationId: 'huge' } } } };
    const servers = parseMcpConfig(
      JSON.stringify({
        mcpServers: { api: { type: 'openapi', openapi_spec: spec, openapi_base_url: `${base}/api` } },
      }),
      join(fixtures, 'mcp_servers.json'),
      {},
    );
    const manager = new McpClientManager({ env: {} });
    try {
      await manager.connect(servers);
      const before = process.memoryUsage().rss;
      const result = await manager.callTool('mcp__api__huge', {});
      const grownMb = (process.memoryUsage().rss - before) / 1024 / 1024;
      expect(result.isError).toBe(true);
      expect(result.text).toContain('larger than 4194304 bytes (max_response_bytes)');
      expect(grownMb).toBeLessThan(60); // reading it whole would take > 200 MB (bytes + string)
    } finally {
      await manager.close();
    }
  });

  it('a remote MCP server answering tools/call with 100 MB fails that call only; the next call works', async () => {
    const servers = parseMcpConfig(
      JSON.stringify({ mcpServers: { big: { url: `${base}/mcp`, max_response_bytes: 1_000_000 } } }),
      join(fixtures, 'mcp_servers.json'),
      {},
    );
    const manager = new McpClientManager({ env: {}, connectTimeoutMs: 5000 });
    try {
      await manager.connect(servers);
      expect(manager.status()[0]?.state).toBe('connected');
      const before = process.memoryUsage().rss;
      const failure = await manager
        .callTool('mcp__big__big', {}, { timeoutMs: 20_000 })
        .catch((error: Error) => error);
      const grownMb = (process.memoryUsage().rss - before) / 1024 / 1024;
      expect(failure).toBeInstanceOf(Error);
      expect((failure as Error).message).toContain('larger than 1000000 bytes (max_response_bytes)');
      expect(grownMb).toBeLessThan(60);
      expect((await manager.callTool('mcp__big__small', {})).text).toBe('still here');
    } finally {
      await manager.close();
    }
  });
});

describe('hardening 12: too many tools', () => {
  it('a config offering more tools than a provider accepts is warned about at load', async () => {
    const mcpServers = Object.fromEntries(
      Array.from({ length: 70 }, (_, index) => [
        `utility${index}`,
        { type: 'builtin', tools: [{ name: 'get_current_time' }, { name: 'calculate' }] },
      ]),
    );
    const servers = parseMcpConfig(JSON.stringify({ mcpServers }), join(fixtures, 'mcp_servers.json'), {});
    const logger = recordingLogger();
    const manager = new McpClientManager({ env: {}, logger });
    try {
      await manager.connect(servers);
      expect(manager.listTools()).toHaveLength(140);
      const warning = logger.lines.find(
        (line) => line.level === 'warn' && /more than OpenAI accepts/.test(line.message),
      );
      expect(warning?.fields).toMatchObject({ tools: 140, limit: 128 });
    } finally {
      await manager.close();
    }
  });
});

describe('a server that cannot start says why', () => {
  it('a script path that does not exist is named with the folder it was resolved against', async () => {
    const servers = parseMcpConfig(
      JSON.stringify({
        mcpServers: { weather: { command: 'node', args: ['mcp_servers/weather/dist/index.js'] } },
      }),
      join(fixtures, 'config', 'mcp_servers.json'),
      {},
    );
    const manager = new McpClientManager({ env: {} });
    try {
      await manager.connect(servers);
      const [status] = manager.status();
      expect(status?.state).toBe('restarting');
      expect(status?.reason).toContain(
        `args[0] "mcp_servers/weather/dist/index.js" does not exist (resolved against ${join(fixtures, 'config')}:`,
      );
    } finally {
      await manager.close();
    }
  });

  it('a crash shows the stderr line with the cause and its top frame, not Node’s version line', async () => {
    const script = join(fixtures, 'throws-on-start.mjs');
    const servers = parseMcpConfig(
      JSON.stringify({ mcpServers: { broken: { command: process.execPath, args: [script] } } }),
      join(fixtures, 'mcp_servers.json'),
      {},
    );
    const manager = new McpClientManager({ env: {}, connectTimeoutMs: 5000 });
    try {
      await manager.connect(servers);
      const reason = manager.status()[0]?.reason ?? '';
      expect(reason).toContain('Error [ERR_MODULE_NOT_FOUND]: Cannot find module');
      expect(reason).toMatch(/at .*throws-on-start\.mjs|at .*node:internal/);
      expect(reason).not.toMatch(/stderr: Node\.js v\d/);
    } finally {
      await manager.close();
    }
  });
});

describe('calculate cannot be made to overflow the stack', () => {
  const hostile: Array<[string, string]> = [
    ['2 000 nested parentheses', `${'('.repeat(2000)}1${')'.repeat(2000)}`],
    ['100 000 unary minuses', `${'-'.repeat(100_000)}1`],
    ['a long ^ chain', Array(1000).fill('1').join('^')],
  ];
  it.each(hostile)(
    '%s: a clear CalculationError the model can read, and the tool keeps working',
    async (_name, expression) => {
      const manager = new McpClientManager({ env: {} });
      try {
        await manager.connect(
          parseMcpConfig(JSON.stringify({ mcpServers: { calc: { type: 'builtin' } } }), 'test.json', {}),
        );
        const outcome = await manager.callTool('mcp__calc__calculate', { expression });
        expect(outcome.isError).toBe(true);
        expect(outcome.text).toMatch(/too deeply nested|too long/);
        expect(outcome.text).not.toMatch(/call stack/i);
        const fine = await manager.callTool('mcp__calc__calculate', {
          expression: `${'('.repeat(50)}2*3${')'.repeat(50)}`,
        });
        expect(fine).toMatchObject({ isError: false, text: expect.stringContaining('6') });
      } finally {
        await manager.close();
      }
    },
  );
});

describe('hardening 27.14: escaped forms of a secret', () => {
  it('a secret with quotes, a backslash or a tab is redacted as JSON or a log line quotes it', () => {
    const secret = 'pa"ss\\wo\trd-123';
    const redactor = new Redactor([]);
    redactor.pin([secret]);
    expect(redactor.redact(`body: ${JSON.stringify({ token: secret })}`)).toBe(
      'body: {"token":"[REDACTED]"}',
    );
    expect(redactor.redact(`raw ${secret}`)).toBe('raw [REDACTED]');
  });
});
