import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { AddressAllowlist, guardedFetch, oauthStoreOver } from '@ai-assistant/host-core';
import { guardedAgent, isRefusedAddress } from '@ai-assistant/host-core/internal';
import { openStore, type Store } from '@ai-assistant/store';
import { rowsMentioning, storeDatabase } from '@ai-assistant/store/testing';
import {
  type AuthorizationServer,
  embeddedStoreFolder,
  followAuthorization,
  listenOnLoopback,
  type ProtectedServer,
  petSpec,
  startAuthorizationServer,
  startPetApi,
  startProtectedServer,
  startStatelessServer,
  startTokenServer,
  type TokenServer,
  tokenOf,
} from '@ai-assistant/test-kit';
import { fetch } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { People } from '../src/people.js';
import { WorkspaceServerError } from '../src/workspace-servers.js';
import { echoServer, managerPool, nodeServer } from './helpers.js';

// Servers a workspace adds itself (remote MCP, OpenAPI): real loopback servers, a real store (PGlite),
// People and the manager as the apps use them. Loopback is refused unless the operator allows it.
describe('servers a workspace adds', () => {
  const pool = managerPool();
  const admin = { workspace: 'T1', user: 'U_ADMIN' };
  const alice = { workspace: 'T1', user: 'U_ALICE' };
  const other = { workspace: 'T2', user: 'U_CAROL' };
  let dataDir: string;
  let store: Store;
  let remote: TokenServer;

  beforeAll(async () => {
    dataDir = embeddedStoreFolder('workspace-servers-');
    store = await openStore({ dataDir, env: {} });
    remote = await startTokenServer({ requireToken: true });
  }, 60_000);
  afterEach(() => pool.closeAll());
  afterAll(async () => {
    remote?.close();
    await store?.close();
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
  });

  const start = async (allow = '') => {
    const manager = await pool.connect([nodeServer('echo', echoServer)]);
    return new People(manager, store, { workspaceServersAllow: allow });
  };
  const toolsOf = async (people: People, person: typeof alice) =>
    (await people.viewFor(person))?.listTools().map((tool) => tool.name) ?? [];
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error as WorkspaceServerError,
    );

  it('loopback, private, link-local and metadata addresses are refused unless the operator allows them', async () => {
    const people = await start();
    const port = new URL(remote.url).port;
    for (const url of [
      remote.url,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.8/mcp',
      `http://[::ffff:127.0.0.1]:${port}/mcp`,
      `http://[::1]:${port}/mcp`,
      `http://localhost:${port}/mcp`,
      'http://metadata.google.internal/',
      'file:///etc/passwd',
      'http://user:pass@example.com/mcp',
    ]) {
      const error = await refusal(people.testServer(admin, { name: 'crm', kind: 'mcp', url, auth: 'none' }));
      expect(error, url).toBeInstanceOf(WorkspaceServerError);
      expect(error?.field).toBe('url');
    }
    const metadata = await refusal(
      people.addServer(admin, { name: 'crm', kind: 'mcp', url: 'http://169.254.169.254/', auth: 'none' }),
    );
    expect(metadata?.message).toMatch(
      /169\.254\.169\.254 is a loopback, private, link-local or metadata address/,
    );
    expect(await store.workspaceServers.list('T1')).toEqual([]);
    expect(isRefusedAddress('93.184.216.34')).toBe(false);
    expect(isRefusedAddress('2606:4700::1111')).toBe(false);
  });

  it('a redirect is followed within the server’s own address only; elsewhere it is refused, naming where to add it', async () => {
    const people = await start('127.0.0.1');
    const secret = tokenOf('team');
    const seen: string[] = [];
    // A server that moved: /old answers 308 to /mcp on its own address; /away 307 to another server;
    // /found 302 (a POST would arrive as a GET); /loop to itself, for ever.
    const moved = await startStatelessServer(
      (mcp) => {
        mcp.registerTool(
          'hello',
          { description: 'Says hello', annotations: { readOnlyHint: true } },
          async () => ({
            content: [{ type: 'text', text: 'hello from the new address' }],
          }),
        );
      },
      (request, response) => {
        const path = new URL(request.url ?? '/', 'http://localhost').pathname;
        seen.push(
          `${request.method} ${path} ${request.headers.authorization === `Bearer ${secret}` ? 'secret' : 'none'}`,
        );
        const to = {
          '/old': [308, '/mcp'],
          '/away': [307, remote.url],
          '/found': [302, '/mcp'],
          '/loop': [308, '/loop'],
          '/bad': [308, 'http://[bad'],
        }[path];
        if (!to) return true;
        response.writeHead(to[0] as number, { location: to[1] as string }).end();
        return false;
      },
    );
    try {
      const base = new URL(moved.url).origin;
      const input = (path: string) =>
        ({ name: 'moved', kind: 'mcp', url: `${base}${path}`, auth: 'secret', secret }) as const;
      expect((await people.testServer(admin, input('/old'))).tools).toEqual(['hello']);
      // The request went on to /mcp on the same address, with its method and its header.
      expect(seen).toContain('POST /old secret');
      expect(seen).toContain('POST /mcp secret');
      expect(await people.addServer(admin, input('/old'))).toEqual(['hello']);
      const view = await people.viewFor(alice);
      expect((await view?.callTool('mcp__moved__hello', {}))?.text).toBe('hello from the new address');
      await people.removeServer(admin, 'moved');

      seen.length = 0;
      const away = await refusal(people.testServer(admin, input('/away')));
      const elsewhere = new URL(remote.url).origin;
      expect(away?.message).toContain(`redirect to ${elsewhere};`);
      expect(away?.message).toContain(`add it at its new address on ${elsewhere} instead`);
      // Nothing reached the other server: the header stayed home.
      expect(remote.calls).toEqual([]);
      const found = await refusal(people.testServer(admin, input('/found')));
      expect(found?.message).toContain('answered a POST with a 302 redirect to another path');
      // Only the origin is named: a path may hold a key.
      expect(found?.message).not.toContain('/mcp');
      const bad = await refusal(people.testServer(admin, input('/bad')));
      expect(bad?.message).toContain('a redirect to an address that cannot be read');
      // A Request given to the guarded fetch keeps its method, header and body through the redirect.
      seen.length = 0;
      const send = await guardedFetch(new AddressAllowlist(['127.0.0.1']));
      const listed = await send(
        new Request(`${base}/old`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${secret}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
        }),
      );
      expect(seen).toEqual(['POST /old secret', 'POST /mcp secret']);
      expect(await listed.text()).toContain('hello');
      const loop = await refusal(people.testServer(admin, input('/loop')));
      expect(loop?.message).toMatch(/redirected more than 5 times/);
      expect(seen.filter((line) => line.startsWith('POST /loop')).length).toBe(6);
    } finally {
      moved.close();
    }
  }, 30_000);

  it('the check happens again when each connection is dialled: a name that resolves to loopback is refused', async () => {
    const failure = await fetch(remote.url.replace('127.0.0.1', 'localhost'), {
      dispatcher: await guardedAgent(new AddressAllowlist()),
    }).then(
      () => undefined,
      (error: { cause?: Error }) => error.cause,
    );
    expect(failure?.name).toBe('RefusedAddressError');
    expect(failure?.message).toMatch(/localhost resolves to (127\.0\.0\.1|::1)/);
    // Allowed by name, the same request goes through.
    const allowed = await fetch(remote.url.replace('127.0.0.1', 'localhost'), {
      dispatcher: await guardedAgent(new AddressAllowlist(['localhost'])),
      method: 'POST',
    });
    expect(allowed.status).toBe(401);
  });

  it('names are checked: no shadowing the catalog, the host or the workspace’s own; bad fields are named', async () => {
    const people = await start('127.0.0.1');
    for (const name of ['echo', 'host', 'Bad Name', '']) {
      const error = await refusal(
        people.testServer(admin, { name, kind: 'mcp', url: remote.url, auth: 'none' }),
      );
      expect(error?.field, name).toBe('name');
    }
    const secretless = await refusal(
      people.testServer(admin, { name: 'crm', kind: 'mcp', url: remote.url, auth: 'secret' }),
    );
    expect(secretless?.field).toBe('secret');
    const notJson = await refusal(
      people.testServer(admin, {
        name: 'api',
        kind: 'openapi',
        url: remote.url,
        auth: 'none',
        document: 'openapi: 3',
      }),
    );
    expect(notJson).toMatchObject({ field: 'document', message: expect.stringMatching(/must be JSON/) });
  });

  it('an admin adds a token server with a workspace secret: offered in that workspace’s next turn, not another’s; stored sealed', async () => {
    const people = await start('127.0.0.1');
    const secret = tokenOf('team');
    // Test first: it connects and lists the tools, and saves nothing.
    const tested = await people.testServer(admin, {
      name: 'crm',
      kind: 'mcp',
      url: remote.url,
      auth: 'secret',
      secret,
    });
    expect(tested.tools).toEqual(['whoami']);
    expect(await store.workspaceServers.list('T1')).toEqual([]);
    // Without the secret the server refuses (401), and the Test says so.
    const refused = await refusal(
      people.testServer(admin, { name: 'crm', kind: 'mcp', url: remote.url, auth: 'none' }),
    );
    expect(refused?.message).toMatch(/could not be reached/);

    expect(
      await people.addServer(admin, { name: 'crm', kind: 'mcp', url: remote.url, auth: 'secret', secret }),
    ).toEqual(['whoami']);
    expect(await toolsOf(people, alice)).toContain('mcp__crm__whoami');
    expect(await toolsOf(people, other)).not.toContain('mcp__crm__whoami');
    const view = await people.viewFor(alice);
    const outcome = await view?.callTool('mcp__crm__whoami', {});
    expect(outcome?.text).toBe('you are team');
    // A read-only tool runs without approval under the default `writes`; `always` asks for every call.
    expect(view?.listTools().find((tool) => tool.name === 'mcp__crm__whoami')?.needsApproval).toBe(false);
    await people.setApproval(admin, 'crm', 'always');
    expect(
      (await people.viewFor(alice))?.listTools().find((tool) => tool.name === 'mcp__crm__whoami')
        ?.needsApproval,
    ).toBe(true);
    // The workspace's servers are listed with who added them; the other workspace has none.
    expect((await people.servers(alice)).find((server) => server.name === 'crm')).toMatchObject({
      added: { by: 'U_ADMIN', kind: 'mcp', auth: 'secret' },
      approvalChoice: 'always',
      toolCount: 1,
    });
    expect((await people.servers(other)).some((server) => server.name === 'crm')).toBe(false);
    // A second server of that name is refused; the secret is nowhere in the clear.
    expect(
      (await refusal(people.addServer(admin, { name: 'crm', kind: 'mcp', url: remote.url, auth: 'none' })))
        ?.field,
    ).toBe('name');
    const rows = await storeDatabase(store).selectFrom('sealed_records').selectAll().execute();
    expect(rows.some((row) => row.kind === 'workspace-server')).toBe(true);
    expect(await rowsMentioning(store, secret)).toEqual([]);

    // Removed: gone from the next turn, its connection closed.
    expect(await people.removeServer(admin, 'crm')).toBe(true);
    expect(await toolsOf(people, alice)).not.toContain('mcp__crm__whoami');
  }, 30_000);

  it('a server that takes each person’s token: offered once they connect, with their token only', async () => {
    const people = await start('127.0.0.1');
    const token = tokenOf('alice');
    // Test with the admin's own token (not stored).
    await people.addServer(
      admin,
      { name: 'mine', kind: 'mcp', url: remote.url, auth: 'person', description: 'The team CRM' },
      tokenOf('admin'),
    );
    expect(await toolsOf(people, alice)).not.toContain('mcp__mine__whoami');
    const prompt = (await people.viewFor(alice))?.systemInstructions().join('\n');
    expect(prompt).toMatch(/"mine" server works with each user's own credential/);
    expect(people.personalServer('mine', 'T1')).toMatchObject({ name: 'mine', personalCredential: true });
    expect(await people.personalServerIn('T2', 'mine')).toMatchObject({ problem: 'unknown server' });

    await people.connect(alice, 'mine', token);
    const view = await people.viewFor(alice);
    expect((await view?.callTool('mcp__mine__whoami', {}))?.text).toBe('you are alice');
    expect(view?.listTools().map((tool) => tool.name)).toContain('mcp__mine__alice_only');
    await people.removeServer(admin, 'mine');
  }, 30_000);

  it('#43.2 a removed server’s tokens die with it: a new server by its name at another address never sees them', async () => {
    const people = await start('127.0.0.1');
    const old = tokenOf('alice');
    await people.addServer(
      admin,
      { name: 'crm', kind: 'mcp', url: remote.url, auth: 'person' },
      tokenOf('admin'),
    );
    await people.connect(alice, 'crm', old);
    expect((await (await people.viewFor(alice))?.callTool('mcp__crm__whoami', {}))?.text).toBe(
      'you are alice',
    );
    expect(await people.removeServer(admin, 'crm')).toBe(true);

    // The successor: another server, another address, the same name; it records every Authorization.
    const received: string[] = [];
    const successor = await startStatelessServer(
      (mcp) => {
        mcp.registerTool('whoami', { annotations: { readOnlyHint: true } }, async () => ({
          content: [{ type: 'text', text: 'the new crm' }],
        }));
      },
      (request) => {
        received.push(request.headers.authorization ?? '');
        return true;
      },
    );
    try {
      await people.addServer(
        admin,
        { name: 'crm', kind: 'mcp', url: successor.url, auth: 'person' },
        tokenOf('admin'),
      );
      expect((await people.servers(alice)).find((entry) => entry.name === 'crm')).toMatchObject({
        connected: false,
      });
      const view = await people.viewFor(alice);
      expect(view?.listTools().map((tool) => tool.name)).not.toContain('mcp__crm__whoami');
      expect(received.length).toBeGreaterThan(0);
      expect(received.filter((authorization) => authorization.includes(old))).toEqual([]);
      expect(await store.credentials.list('T1', 'U_ALICE')).toEqual([]);
    } finally {
      await people.removeServer(admin, 'crm');
      successor.close();
    }
  }, 30_000);

  it('#43.2 credentials left under a name before this release are dropped when a server by that name is added', async () => {
    const people = await start('127.0.0.1');
    const old = tokenOf('alice');
    // A credential the previous server by this name left behind (its removal kept credentials then).
    await store.credentials.put('T1', 'U_ALICE', 'crm', old);
    await people.addServer(
      admin,
      { name: 'crm', kind: 'mcp', url: remote.url, auth: 'person' },
      tokenOf('admin'),
    );
    try {
      expect((await people.servers(alice)).find((entry) => entry.name === 'crm')).toMatchObject({
        connected: false,
      });
      expect(await store.credentials.list('T1', 'U_ALICE')).toEqual([]);
    } finally {
      await people.removeServer(admin, 'crm');
    }
  }, 30_000);

  it('an OpenAPI document pasted or read from its URL: its operations become tools on the API’s base', async () => {
    const api = await startPetApi();
    try {
      const people = await start('127.0.0.1');
      await people.addServer(admin, {
        name: 'pets',
        kind: 'openapi',
        url: api.url,
        auth: 'secret',
        header: 'X-Api-Key',
        secret: 'pets-secret-123',
        document: JSON.stringify(petSpec),
      });
      const view = await people.viewFor(alice);
      const tools = view?.listTools() ?? [];
      expect(tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(['mcp__pets__listPets', 'mcp__pets__addPet']),
      );
      expect(tools.find((tool) => tool.name === 'mcp__pets__addPet')?.needsApproval).toBe(true);
      expect((await view?.callTool('mcp__pets__listPets', {}))?.text).toContain('[]');
      expect(api.received.at(-1)?.url).toBe('/api/pets');
      await people.removeServer(admin, 'pets');

      // A document at a URL is read once when added; its first server is the API's base.
      const documents = createServer((_request, response) =>
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ ...petSpec, servers: [{ url: api.url }] })),
      );
      const documentUrl = `${await listenOnLoopback(documents)}/openapi.json`;
      try {
        const fromUrl = await people.testServer(admin, {
          name: 'pets',
          kind: 'openapi',
          url: documentUrl,
          auth: 'none',
        });
        expect(fromUrl.spec.url).toBe(api.url);
        expect(fromUrl.tools).toEqual(['listPets', 'addPet']);
      } finally {
        documents.close();
      }
      // A document that never says its length is read through a 1 MB cap, never buffered whole.
      let sent = 0;
      const endless = createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        const chunk = ' '.repeat(64 * 1024);
        const more = () => {
          while (sent < 50 * 1024 * 1024 && !response.destroyed && response.write(chunk))
            sent += chunk.length;
          if (sent < 50 * 1024 * 1024 && !response.destroyed) response.once('drain', more);
          else response.end();
        };
        more();
      });
      const endlessUrl = `${await listenOnLoopback(endless)}/openapi.json`;
      try {
        const huge = await refusal(
          people.testServer(admin, { name: 'huge', kind: 'openapi', url: endlessUrl, auth: 'none' }),
        );
        expect(huge).toMatchObject({ field: 'document', message: expect.stringMatching(/larger than 1 MB/) });
        // Stopped near the cap (socket buffers aside), not after all 50 MB.
        expect(sent).toBeLessThan(16 * 1024 * 1024);
      } finally {
        endless.closeAllConnections();
        endless.close();
      }
      // Read from a loopback address only when the operator allows it, as the server itself.
      const refused = await refusal(
        start().then((strict) =>
          strict.testServer(admin, {
            name: 'pets',
            kind: 'openapi',
            url: `${api.url}/openapi.json`,
            auth: 'none',
          }),
        ),
      );
      expect(refused?.field).toBe('url');
    } finally {
      await api.close();
    }
  }, 30_000);
});

// A workspace's OAuth server: a real authorization server (oidc-provider) and a protected MCP server.
describe('a workspace’s server where each person signs in with OAuth', () => {
  const pool = managerPool();
  const admin = { workspace: 'T1', user: 'U_ADMIN' };
  const alice = { workspace: 'T1', user: 'U_ALICE' };
  const other = { workspace: 'T2', user: 'U_CAROL' };
  let dataDir: string;
  let store: Store;
  let as: AuthorizationServer;
  let server: ProtectedServer;

  beforeAll(async () => {
    dataDir = embeddedStoreFolder('workspace-oauth-');
    store = await openStore({ dataDir, env: {} });
    as = await startAuthorizationServer({ accessTokenTtlSeconds: 600 });
    server = await startProtectedServer(as.issuer);
    as.resources.push(server.url);
  }, 60_000);
  afterAll(async () => {
    await pool.closeAll();
    await server?.close();
    await as?.close();
    await store?.close();
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
  });

  const start = async (allow: string) => {
    const manager = await pool.connect([nodeServer('echo', echoServer)], {
      oauth: {
        store: oauthStoreOver(store.credentials, store.oauth),
        redirectUrl: 'http://127.0.0.1:9/oauth/callback',
      },
    });
    return new People(manager, store, { workspaceServersAllow: allow });
  };

  it('an admin adds it (Test finds its authorization server); a person signs in and reaches it with their own token', async () => {
    const people = await start('127.0.0.1');
    expect(
      await people.addServer(admin, { name: 'tracker', kind: 'mcp', url: server.url, auth: 'oauth' }),
    ).toEqual([]);
    expect((await people.servers(alice)).find((entry) => entry.name === 'tracker')).toMatchObject({
      oauth: true,
      connected: false,
    });
    const { url } = await people.beginConnect(alice, 'tracker');
    expect(await people.completeConnect(await followAuthorization(url, { account: 'alice' }))).toMatchObject({
      ...alice,
      server: 'tracker',
    });
    const view = await people.viewFor(alice);
    expect((await view?.callTool('mcp__tracker__whoami', {}))?.text).toBe('you are alice');
    // Another workspace has no such server to sign in to.
    await expect(people.beginConnect(other, 'tracker')).rejects.toThrow(/not connected with OAuth/);
    expect(await people.disconnect(alice, 'tracker')).toBe(true);
    await people.removeServer(admin, 'tracker');
  }, 30_000);

  it('#43.2 removing it revokes and deletes each person’s grant: its successor at another address never sees their token', async () => {
    const people = await start('127.0.0.1');
    await people.addServer(admin, { name: 'crm', kind: 'mcp', url: server.url, auth: 'oauth' });
    const { url } = await people.beginConnect(alice, 'crm');
    await people.completeConnect(await followAuthorization(url, { account: 'alice' }));
    expect((await (await people.viewFor(alice))?.callTool('mcp__crm__whoami', {}))?.text).toBe(
      'you are alice',
    );
    const grant = JSON.parse((await store.credentials.of('T1', 'U_ALICE')).secrets.crm ?? '{}');
    const accessToken: string = grant.tokens.access_token;
    expect(accessToken).toBeTruthy();
    const revocations = as.counts.revocations;

    expect(await people.removeServer(admin, 'crm')).toBe(true);

    const successor = await startProtectedServer(as.issuer);
    try {
      await people.addServer(admin, { name: 'crm', kind: 'mcp', url: successor.url, auth: 'oauth' });
      expect((await people.servers(alice)).find((entry) => entry.name === 'crm')).toMatchObject({
        connected: false,
      });
      const view = await people.viewFor(alice);
      expect(view?.listTools().map((tool) => tool.name)).not.toContain('mcp__crm__whoami');
      expect(successor.bearers).not.toContain(accessToken);
      expect(successor.bearers.filter((token) => token === grant.tokens.refresh_token)).toEqual([]);
      expect(as.counts.revocations).toBeGreaterThan(revocations);
      expect(await store.credentials.list('T1', 'U_ALICE')).toEqual([]);
    } finally {
      await people.removeServer(admin, 'crm');
      await successor.close();
    }
  }, 30_000);

  it('discovery keeps to public addresses too: an authorization server on a refused address is never asked', async () => {
    // The server's metadata names an authorization server at 127.0.0.1; only `localhost` is allowed.
    const asked: string[] = [];
    const refusedAs = createServer((request, response) => {
      asked.push(request.url ?? '');
      response.writeHead(404).end();
    });
    const refusedBase = await listenOnLoopback(refusedAs);
    const resource = createServer((request, response) => {
      const base = `http://localhost:${(resource.address() as { port: number }).port}`;
      if (request.url?.startsWith('/.well-known/oauth-protected-resource'))
        return void response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ resource: `${base}/mcp`, authorization_servers: [refusedBase] }));
      response
        .writeHead(401, {
          'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
        })
        .end();
    });
    const port = new URL(await listenOnLoopback(resource)).port;
    try {
      const people = await start('localhost');
      const error = await people
        .testServer(admin, {
          name: 'sneaky',
          kind: 'mcp',
          url: `http://localhost:${port}/mcp`,
          auth: 'oauth',
        })
        .then(
          () => undefined,
          (failure: unknown) => failure as WorkspaceServerError,
        );
      expect(error).toBeInstanceOf(WorkspaceServerError);
      // The admin is told which address was refused, not that no authorization server answers.
      expect(error?.message).toMatch(/127\.0\.0\.1.* loopback, private, link-local or metadata address/);
      expect(asked).toEqual([]);
    } finally {
      refusedAs.close();
      resource.close();
    }
  }, 30_000);
});
