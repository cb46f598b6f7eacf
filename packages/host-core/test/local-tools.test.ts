import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { join } from 'node:path';
import { ScriptedProvider, toolMessage } from '@ai-assistant/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ChatService } from '../src/chat/chat-service.js';
import { parseMcpConfig } from '../src/config/mcp-config.js';
import { McpClientManager } from '../src/mcp/client-manager.js';
import { fixtures, listenOnLoopback, recordingLogger } from './helpers.js';

const configFile = join(fixtures, 'mcp_servers.json');
const managers: McpClientManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.close()));
});

async function connect(
  servers: Record<string, unknown>,
  options: ConstructorParameters<typeof McpClientManager>[0] = {},
) {
  const manager = new McpClientManager({ now: () => new Date('2026-03-12T20:30:05Z'), ...options });
  managers.push(manager);
  await manager.connect(
    parseMcpConfig(JSON.stringify({ mcpServers: servers }), configFile, options.env ?? {}),
  );
  return manager;
}

describe('builtin tools', () => {
  it('are offered under the configured description and schema, filtered by allowed_tools, and run in the host', async () => {
    const mcp = await connect({
      util: {
        type: 'builtin',
        tools: [
          { name: 'calculate', description: '計算します' },
          {
            name: 'get_current_time',
            input_schema: { type: 'object', properties: { timezone: { type: 'string' } } },
          },
        ],
        allowed_tools: ['calculate', 'get_current_time'],
      },
      hidden: {
        type: 'builtin',
        tools: [{ name: 'calculate' }, { name: 'get_current_time' }],
        allowed_tools: ['get_current_time'],
      },
    });
    expect(mcp.listTools().map((tool) => [tool.name, tool.description])).toEqual([
      ['mcp__util__calculate', '計算します'],
      ['mcp__util__get_current_time', expect.stringContaining('time zone')],
      ['mcp__hidden__get_current_time', expect.stringContaining('time zone')],
    ]);
    expect(await mcp.callTool('mcp__util__calculate', { expression: '(1.5 + 2) × 3 ^ 2' })).toMatchObject({
      text: '(1.5 + 2) × 3 ^ 2 = 31.5',
      isError: false,
    });
    expect((await mcp.callTool('mcp__util__get_current_time', {})).text).toContain(
      '2026-03-13T05:30:05+09:00',
    );
    expect(
      mcp.status().map((server) => [server.name, server.transport, server.state, server.toolCount]),
    ).toEqual([
      ['util', 'builtin', 'connected', 2],
      ['hidden', 'builtin', 'connected', 1],
    ]);
  });

  it('bad arguments and failures are isError results the model can read', async () => {
    const mcp = await connect({
      util: { type: 'builtin', tools: [{ name: 'calculate' }, { name: 'get_current_time' }] },
    });
    expect(await mcp.callTool('mcp__util__calculate', {})).toMatchObject({
      isError: true,
      text: expect.stringContaining('missing required argument(s): expression'),
    });
    expect(await mcp.callTool('mcp__util__calculate', { expression: 42 })).toMatchObject({
      isError: true,
      text: expect.stringContaining('must be string'),
    });
    expect(await mcp.callTool('mcp__util__calculate', { expression: '1/0' })).toMatchObject({
      isError: true,
      text: 'cannot calculate "1/0": division by zero',
    });
    expect(await mcp.callTool('mcp__util__get_current_time', { timezone: 'Nowhere/City' })).toMatchObject({
      isError: true,
    });
  });
});

interface PetRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

describe('openapi: the Petstore over loopback', () => {
  // A REST server implementing the trimmed Petstore 3.0 document in test/fixtures/petstore.json
  // (petstore_auth is http bearer there instead of OAuth2).
  const requests: PetRequest[] = [];
  const pets = new Map<number, Record<string, unknown>>([
    [1, { id: 1, name: 'doggie', status: 'available', photoUrls: [] }],
  ]);
  let server: Server;
  let baseUrl: string;
  beforeAll(async () => {
    server = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? JSON.parse(text) : undefined;
      requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      const url = new URL(request.url ?? '/', 'http://petstore');
      const send = (status: number, value: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(value));
      };
      if (request.headers['x-delay'])
        await new Promise((resolve) => setTimeout(resolve, Number(request.headers['x-delay'])));
      const id = Number(/^\/api\/v3\/pet\/(\d+)$/.exec(url.pathname)?.[1]);
      if (request.method === 'POST' && url.pathname === '/api/v3/pet') {
        if (!request.headers.authorization?.startsWith('Bearer '))
          return send(401, { message: 'no bearer token' });
        const pet = {
          ...(body as Record<string, unknown>),
          id: (body as { id?: number }).id ?? pets.size + 1,
        };
        pets.set(pet.id as number, pet);
        return send(200, pet);
      }
      if (request.method === 'GET' && url.pathname === '/api/v3/pet/findByStatus') {
        return send(
          200,
          [...pets.values()].filter((pet) => pet.status === (url.searchParams.get('status') ?? 'available')),
        );
      }
      if (request.method === 'GET' && id) {
        if (request.headers.api_key !== 'special-key-123')
          return send(403, { message: `bad api_key ${request.headers.api_key}` });
        return pets.has(id)
          ? send(200, pets.get(id))
          : send(404, { code: 1, type: 'error', message: 'Pet not found' });
      }
      if (request.method === 'DELETE' && id) {
        if (!pets.delete(id)) return send(400, { message: 'Invalid pet value' });
        return send(200, { message: `deleted ${id}` });
      }
      send(404, { message: 'no such route' });
    });
    baseUrl = `${await listenOnLoopback(server)}/api/v3`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  const petstore = (extra: Record<string, unknown> = {}) => ({
    petstore: {
      type: 'openapi',
      openapi_spec: 'petstore.json',
      openapi_base_url: baseUrl,
      security: { petstore_auth: '${user_token}', api_key: '${PET_API_KEY}' },
      ...extra,
    },
  });

  it('lists one tool per operation with merged, resolved schemas; a non-JSON body is skipped with a warning', async () => {
    const logger = recordingLogger();
    const mcp = await connect(petstore(), { env: { PET_API_KEY: 'special-key-123' }, logger });
    const tools = Object.fromEntries(mcp.listTools().map((tool) => [tool.name, tool]));
    expect(Object.keys(tools)).toEqual([
      'mcp__petstore__addPet',
      'mcp__petstore__findPetsByStatus',
      'mcp__petstore__getPetById',
      'mcp__petstore__delete_pet_petId',
    ]);
    expect(tools.mcp__petstore__addPet?.description).toBe(
      'Add a new pet to the store.\n\nAdd a new pet to the store.',
    );
    expect(tools.mcp__petstore__addPet?.inputSchema).toMatchObject({
      type: 'object',
      required: ['name', 'photoUrls'],
      properties: {
        category: { type: 'object', properties: { name: { type: 'string' } } },
        tags: { items: { properties: { id: { type: 'integer' } } } },
      },
    });
    expect(tools.mcp__petstore__getPetById?.inputSchema).toMatchObject({
      required: ['petId'],
      properties: { petId: { type: 'integer' } },
    });
    expect(tools.mcp__petstore__delete_pet_petId?.inputSchema).toMatchObject({
      properties: { petId: {}, api_key: {} },
    });
    expect(logger.lines.filter((line) => line.level === 'warn').map((line) => line.message)).toEqual([
      expect.stringContaining('placeOrder: skipped'),
    ]);
  });

  it('GET / POST / DELETE with path, query, header and body parameters; error statuses are isError', async () => {
    const mcp = await connect(petstore(), { env: { PET_API_KEY: 'special-key-123' } });
    const tokens = { user_token: 'tok-alice-0001' };
    const added = await mcp.callTool(
      'mcp__petstore__addPet',
      { id: 7, name: 'ポチ', photoUrls: ['a.png'], status: 'sold', category: { id: 1, name: 'Dogs' } },
      { tokens },
    );
    expect(added.isError).toBe(false);
    expect(added.text).toMatch(/^HTTP 200\n\{\n {2}"id": 7,/);
    const post = requests.at(-1) as PetRequest;
    expect(post).toMatchObject({
      method: 'POST',
      url: '/api/v3/pet',
      body: { id: 7, name: 'ポチ', photoUrls: ['a.png'], status: 'sold', category: { id: 1, name: 'Dogs' } },
    });
    expect(post.headers.authorization).toBe('Bearer tok-alice-0001');
    expect(post.headers['content-type']).toBe('application/json');

    expect((await mcp.callTool('mcp__petstore__findPetsByStatus', { status: 'sold' })).text).toContain(
      '"name": "ポチ"',
    );
    expect(requests.at(-1)?.url).toBe('/api/v3/pet/findByStatus?status=sold');
    expect((await mcp.callTool('mcp__petstore__getPetById', { petId: 7 })).text).toContain(
      '"status": "sold"',
    );
    expect(requests.at(-1)?.headers.api_key).toBe('special-key-123');

    expect(await mcp.callTool('mcp__petstore__delete_pet_petId', { petId: 7, api_key: 'x' })).toMatchObject({
      isError: false,
    });
    expect(requests.at(-1)).toMatchObject({ method: 'DELETE', url: '/api/v3/pet/7' });
    const missing = await mcp.callTool('mcp__petstore__getPetById', { petId: 7 });
    expect(missing).toMatchObject({
      isError: true,
      text: expect.stringContaining('HTTP 404 from GET /pet/{petId}'),
    });
    expect(missing.text).toContain('Pet not found');
  });

  it('a missing token is a named error, never a request; the chat loop tells the model it needs credentials', async () => {
    const mcp = await connect(petstore(), { env: { PET_API_KEY: 'special-key-123' } });
    const before = requests.length;
    const call = mcp.callTool('mcp__petstore__addPet', { name: 'x', photoUrls: [] });
    await expect(call).rejects.toMatchObject({ code: 'MISSING_CREDENTIALS' });
    await expect(call).rejects.toThrow('${user_token}');
    expect(requests.length).toBe(before);
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'p', name: 'mcp__petstore__addPet', arguments: { name: 'x', photoUrls: [] } }] },
      { text: 'Please connect your account.' },
    ]);
    // addPet is a POST (a write): the person approves, then the missing token stops it.
    await new ChatService({ provider, tools: mcp }).respond({
      history: [],
      userMessage: 'add a pet',
      approve: async () => ({ outcome: 'approved' }),
    });
    expect(toolMessage(provider.calls[1]!, 'p')?.content).toContain(
      'needs credentials that were not supplied (user_token)',
    );
  });

  it('two concurrent turns with different tokens never see each other’s', async () => {
    const mcp = await connect(petstore({ headers: { 'x-delay': '${delay}' } }), {
      env: { PET_API_KEY: 'special-key-123' },
    });
    const ask = (name: string, token: string, delay: string) =>
      new ChatService({
        provider: new ScriptedProvider([
          { toolCalls: [{ id: name, name: 'mcp__petstore__addPet', arguments: { name, photoUrls: [] } }] },
          { text: 'done' },
        ]),
        tools: mcp,
      }).respond({
        history: [],
        userMessage: name,
        tokens: { user_token: token, delay },
        approve: async () => ({ outcome: 'approved' }),
      });
    await Promise.all([
      ask('alpha', 'tok-alpha-111', '150'),
      ask('beta', 'tok-beta-222', '0'),
      ask('gamma', 'tok-gamma-333', '60'),
    ]);
    const seen = Object.fromEntries(
      requests
        .filter((request) => request.method === 'POST')
        .slice(-3)
        .map((request) => [(request.body as { name: string }).name, request.headers.authorization]),
    );
    expect(seen).toEqual({
      alpha: 'Bearer tok-alpha-111',
      beta: 'Bearer tok-beta-222',
      gamma: 'Bearer tok-gamma-333',
    });
  });

  it('the chat loop works unchanged with builtin, openapi and MCP tools mixed', async () => {
    const mcp = await connect(
      {
        ...petstore(),
        util: { type: 'builtin', tools: [{ name: 'calculate' }] },
        echo: {
          command: process.execPath,
          args: [join(fixtures, 'echo-server.mjs')],
          allowed_tools: ['echo'],
        },
      },
      { env: { PET_API_KEY: 'special-key-123' } },
    );
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          { id: 'c', name: 'mcp__util__calculate', arguments: { expression: '6 × 7' } },
          { id: 'p', name: 'mcp__petstore__findPetsByStatus', arguments: { status: 'available' } },
          { id: 'e', name: 'mcp__echo__echo', arguments: { message: 'mixed' } },
        ],
      },
      (call) => ({
        text: ['c', 'p', 'e'].map((id) => toolMessage(call, id)?.content.split('\n')[0]).join(' | '),
      }),
    ]);
    const result = await new ChatService({ provider, tools: mcp }).respond({
      history: [],
      userMessage: 'all of them',
    });
    expect(result.text).toBe('6 × 7 = 42 | HTTP 200 | echo: mixed');
    expect(result.trace.map((entry) => [entry.server, entry.ok])).toEqual([
      ['util', true],
      ['petstore', true],
      ['echo', true],
    ]);
  });
});
