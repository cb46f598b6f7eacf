import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { ScriptedProvider } from '@ai-assistant/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatService } from '../src/chat/chat-service.js';
import { parseMcpConfig } from '../src/config/mcp-config.js';
import { McpClientManager } from '../src/mcp/client-manager.js';
import { plainByName, Redactor } from '../src/redaction.js';
import { fixtures, listenOnLoopback, recordingLogger } from './helpers.js';

const secrets = {
  SLACK_BOT_TOKEN: 'xoxb-slack-secret-111',
  OPENAI_API_KEY: 'sk-openai-secret-222',
  SERVICE_SECRET: 'service-secret-333',
};
const requestToken = 'per-user-token-444';
const literalHeader = 'literal-header-secret-555';

describe('no secret reaches a log line, an error or a tool result', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    // Everything here quotes the credentials it was sent, as careless backends do.
    server = createServer((request, response) => {
      const quoted = JSON.stringify(request.headers);
      response.writeHead(request.url?.startsWith('/mcp') ? 401 : 500, { 'content-type': 'text/plain' });
      response.end(`rejected ${quoted} ${request.url}`);
    });
    base = await listenOnLoopback(server);
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('through every error path', async () => {
    const env = { ...secrets, PATH: process.env.PATH ?? '' };
    const spec = {
      openapi: '3.0.3',
      paths: {
        '/echo': {
          get: {
            operationId: 'echo',
            parameters: [{ name: 'q', in: 'query', schema: { type: 'string' } }],
            security: [{ key: [] }, { user: [] }],
          },
        },
      },
      components: {
        securitySchemes: {
          key: { type: 'apiKey', in: 'query', name: 'api_key' },
          user: { type: 'http', scheme: 'bearer' },
        },
      },
    };
    const servers = parseMcpConfig(
      JSON.stringify({
        mcpServers: {
          quoting: {
            command: process.execPath,
            args: [join(fixtures, 'echo-server.mjs'), '--crash-quoting-env', 'KEY'],
            env: { KEY: '${SERVICE_SECRET}' },
          },
          remote: {
            url: `${base}/mcp`,
            headers: { Authorization: 'Bearer ${SLACK_BOT_TOKEN}', 'X-Literal': literalHeader },
          },
          api: {
            type: 'openapi',
            openapi_spec: spec,
            openapi_base_url: `${base}/api`,
            security: { key: '${OPENAI_API_KEY}', user: '${user_token}' },
          },
          echo: {
            command: process.execPath,
            args: [join(fixtures, 'echo-server.mjs')],
            env: { SERVICE_SECRET: '${SERVICE_SECRET}' },
          },
        },
      }),
      join(fixtures, 'mcp_servers.json'),
      env,
    );
    const logger = recordingLogger();
    const manager = new McpClientManager({ env, logger, connectTimeoutMs: 5000 });
    const thrown: string[] = [];
    const outputs: string[] = [];
    try {
      await manager.connect(servers);
      expect(manager.status().map((status) => [status.name, status.state])).toEqual([
        ['quoting', 'restarting'],
        ['remote', 'restarting'],
        ['api', 'connected'],
        ['echo', 'connected'],
      ]);
      const tokens = { user_token: requestToken };
      outputs.push((await manager.callTool('mcp__api__echo', { q: requestToken }, { tokens })).text);
      await manager.callTool('mcp__api__echo', {}).catch((error: Error) => thrown.push(error.message));
      outputs.push(
        (
          await manager.callTool(
            'mcp__echo__echo',
            { message: `${secrets.OPENAI_API_KEY} and ${requestToken}` },
            { tokens },
          )
        ).text,
      );
      await manager
        .callTool('mcp__echo__never', {}, { timeoutMs: 200, tokens })
        .catch((error: Error) => thrown.push(error.message));
      await manager
        .callTool('mcp__echo__crash', {}, { tokens })
        .catch((error: Error) => thrown.push(error.message));
      const provider = new ScriptedProvider([
        { toolCalls: [{ id: 'x', name: 'mcp__api__echo', arguments: { q: secrets.SLACK_BOT_TOKEN } }] },
        { text: 'done' },
      ]);
      const result = await new ChatService({
        provider,
        tools: manager,
        logger: manager.redactor.wrap(logger),
      }).respond({
        history: [],
        userMessage: 'go',
        tokens,
      });
      outputs.push(
        ...provider.calls.flatMap((call) => call.messages.map((message) => message.content)),
        JSON.stringify(result.trace),
      );
    } finally {
      await manager.close();
    }
    const everything = JSON.stringify({ log: logger.lines, thrown, outputs });
    // The paths were really taken…
    expect(everything).toContain('login refused for key [REDACTED]');
    expect(everything).toContain('HTTP 401');
    expect(everything).toContain('HTTP 500');
    expect(everything).toContain('${user_token}');
    expect(everything).toContain('did not answer within 200 ms');
    // …and no secret value appears anywhere.
    for (const secret of [...Object.values(secrets), requestToken, literalHeader]) {
      expect(everything, `leaked ${secret}`).not.toContain(secret);
    }
  });

  it('a value filled from the environment into env or url is redacted whatever its variable is called (hardening 27.13)', async () => {
    // Neither name looks like a secret's: before, both values reached status() (and /healthz) unredacted.
    const env = {
      UPSTREAM_AUTH: 'plain-upstream-auth-777',
      API_PW: 'plain-api-pw-888',
      // #48: a folder is not a secret by name, so a server's error about it shows it.
      NOTES_DIR: '/tmp/notes-folder-that-is-missing',
      PATH: process.env.PATH ?? '',
    };
    const servers = parseMcpConfig(
      JSON.stringify({
        mcpServers: {
          quoting: {
            command: process.execPath,
            args: [join(fixtures, 'echo-server.mjs'), '--crash-quoting-env', 'AUTH'],
            env: { AUTH: '${UPSTREAM_AUTH}' },
          },
          remote: { url: `${base}/mcp?key=\${API_PW}` },
          notes: {
            command: process.execPath,
            args: [join(fixtures, 'echo-server.mjs'), '--crash-quoting-env', 'NOTES'],
            env: { NOTES: '${NOTES_DIR}' },
          },
        },
      }),
      join(fixtures, 'mcp_servers.json'),
      env,
    );
    const logger = recordingLogger();
    const manager = new McpClientManager({ env, logger, connectTimeoutMs: 5000 });
    try {
      await manager.connect(servers);
      const reasons = manager.status().map((status) => status.reason ?? '');
      expect(reasons.join('\n')).toContain('login refused for key [REDACTED]');
      expect(reasons.join('\n')).toContain('HTTP 401');
      expect(reasons.join('\n')).toContain('login refused for key /tmp/notes-folder-that-is-missing');
      const everything = JSON.stringify({ reasons, log: logger.lines });
      expect(everything).not.toContain(env.UPSTREAM_AUTH);
      expect(everything).not.toContain(env.API_PW);
    } finally {
      await manager.close();
    }
  });
});

describe('the Redactor', () => {
  it('#48 a value is kept when its variable names a folder, a file or a URL without credentials, and only then', () => {
    expect(plainByName('KNOWLEDGE_DIR', '/tmp/missing')).toBe(true);
    expect(plainByName('CONFIG_PATH', './x.json')).toBe(true);
    expect(plainByName('CA_FILE', '/etc/ssl/ca.pem')).toBe(true);
    expect(plainByName('JMA_BASE_URL', 'https://www.jma.go.jp/bosai')).toBe(true);
    // A URL with userinfo, a query or a fragment may carry a credential.
    expect(plainByName('UPSTREAM_URL', 'https://user:pw@example.com')).toBe(false);
    expect(plainByName('UPSTREAM_URL', 'https://example.com/mcp?key=abc')).toBe(false);
    expect(plainByName('UPSTREAM_URL', 'not a url')).toBe(false);
    // A name that speaks of a secret wins over its ending.
    expect(plainByName('PRIVATE_KEY_FILE', '/keys/key.pem')).toBe(false);
    expect(plainByName('TOKEN_PATH', '/run/token')).toBe(false);
    expect(plainByName('SECRET_DIR', '/run/secrets')).toBe(false);
    expect(plainByName('API_KEY', 'abcdefgh')).toBe(false);
    expect(plainByName('UPSTREAM_AUTH', 'plain')).toBe(false);
  });

  it('hides credentials of a known shape even when they were never registered', () => {
    const redactor = new Redactor();
    expect(redactor.redact('Incorrect API key provided: sk-proj-abcdef123456.')).toBe(
      'Incorrect API key provided: [REDACTED].',
    );
    expect(redactor.redact('token xoxb-1234-5678-abcdef leaked')).toBe('token [REDACTED] leaked');
  });
});
