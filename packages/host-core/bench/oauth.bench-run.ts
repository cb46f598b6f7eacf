import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  authorize,
  followAuthorization,
  startAuthorizationServer,
  startFakeAuth,
  startProtectedServer,
} from '@ai-assistant/test-kit';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { McpServer } from '@modelcontextprotocol/server';
import { it } from 'vitest';
import type { RemoteServerConfig } from '../src/config/server-types.js';
import { McpClientManager } from '../src/mcp/client-manager.js';
import { OAuthService } from '../src/oauth/oauth-service.js';
import { memoryOAuthStore } from '../src/oauth/oauth-store.js';
import { Redactor } from '../src/redaction.js';
import { percentile, printTable, verdict } from './table.js';

/** A loopback MCP server that answers only requests with a bearer token the fake AS issued. */
async function startProtectedEcho() {
  const server = createServer(async (request, response) => {
    if (!/^Bearer secret-access-\d+-abcdef$/.test(request.headers.authorization ?? '')) {
      response.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
      return;
    }
    const mcp = new McpServer({ name: 'protected', version: '1.0.0' });
    mcp.registerTool('echo', { description: 'echo', annotations: { readOnlyHint: true } }, async () => ({
      content: [{ type: 'text', text: 'ok' }],
    }));
    const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await mcp.connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

it('OAuth benchmark', async () => {
  const person = { workspace: 'T1', user: 'U1' };
  const redirectUrl = 'http://127.0.0.1:9/oauth/callback';

  // The connect flow, click to connected, against oidc-provider: discovery, registration (the first
  // time), PKCE, sign-in and consent in a headless browser, the redirect, the code exchange, the grant.
  const realAs = await startAuthorizationServer({});
  const protectedServer = await startProtectedServer(realAs.issuer);
  realAs.resources.push(protectedServer.url);
  const realConfig: RemoteServerConfig = {
    name: 'tracker',
    transport: 'http',
    url: protectedServer.url,
    headers: {},
    timeoutMs: 5000,
    disabled: false,
    oauth: { grant: 'authorization_code' },
  };
  const flows: number[] = [];
  const flowStore = memoryOAuthStore();
  for (let run = 0; run < 30; run++) {
    const oauth = new OAuthService({ store: flowStore, redirectUrl, redactor: new Redactor() });
    const started = performance.now();
    const { url } = await oauth.begin({ workspace: 'T1', user: `U${run}` }, realConfig);
    await oauth.complete(await followAuthorization(url, { account: `person${run}` }), () => realConfig);
    flows.push(performance.now() - started);
  }
  await protectedServer.close();
  await realAs.close();

  // The loopback authorization server the other rows use (its clock and answers are the test's).
  const auth = await startFakeAuth({ expiresIn: 3600 });
  const config: RemoteServerConfig = {
    name: 'tracker',
    transport: 'http',
    url: auth.url,
    headers: {},
    timeoutMs: 5000,
    disabled: false,
    oauth: { grant: 'authorization_code' },
  };

  // 50 concurrent turns on an expired token, on two replicas sharing one store.
  let now = Date.parse('2026-11-23T09:00:00Z');
  const store = memoryOAuthStore();
  const replica = () =>
    new OAuthService({ store, redirectUrl, redactor: new Redactor(), now: () => new Date(now) });
  const [first, second] = [replica(), replica()];
  await first.complete(await authorize((await first.begin(person, config)).url), () => config);
  await Promise.all([first.tokens(person, 'tracker'), second.tokens(person, 'tracker')]);
  const refreshesBefore = auth.counts.refresh_token;
  now += 3600_000;
  await Promise.all(
    Array.from({ length: 50 }, (_, index) => (index % 2 ? first : second).tokens(person, 'tracker')),
  );
  const refreshes = auth.counts.refresh_token - refreshesBefore;

  // A turn's tool call through a person's OAuth connection against the same server with a static header.
  const protectedEcho = await startProtectedEcho();
  const oauthStore = memoryOAuthStore();
  const manager = new McpClientManager({ oauth: { store: oauthStore, redirectUrl } });
  const remote: RemoteServerConfig = { ...config, url: protectedEcho.url };
  const shared: RemoteServerConfig = {
    name: 'static',
    transport: 'http',
    url: protectedEcho.url,
    headers: { Authorization: 'Bearer secret-access-1-abcdef' },
    timeoutMs: 5000,
    disabled: false,
  };
  await manager.connect([{ ...remote, personalCredential: true, connection: 'per_user' }, shared]);
  const oauth = manager.oauth as OAuthService;
  // The grant comes from the fake AS (its discovery is on auth.url); the person's connection uses it.
  await oauth.complete(await authorize((await oauth.begin(person, config)).url), () => config);
  const grant = (await oauthStore.grant('T1', 'U1', 'tracker')) as string;
  const view = await manager.forPerson({ ...person, credentials: { tracker: grant }, settings: new Map() });
  const viaOAuth: number[] = [];
  const viaHeader: number[] = [];
  for (let index = 0; index < 50; index++) {
    await view.callTool('mcp__tracker__echo', {});
    await manager.callTool('mcp__static__echo', {});
  }
  for (let index = 0; index < 500; index++) {
    let started = performance.now();
    await view.callTool('mcp__tracker__echo', {});
    viaOAuth.push(performance.now() - started);
    started = performance.now();
    await manager.callTool('mcp__static__echo', {});
    viaHeader.push(performance.now() - started);
  }
  await manager.close();
  await protectedEcho.close();
  await auth.close();

  const added = percentile(viaOAuth, 0.5) - percentile(viaHeader, 0.5);
  printTable('@ai-assistant/host-core OAuth benchmark (loopback authorization server and MCP server)', [
    [
      'connect flow, click to connected, oidc-provider (median of 30; registration once)',
      `${percentile(flows, 0.5).toFixed(2)} ms`,
    ],
    [
      'token requests by 50 concurrent turns on an expired token, 2 replicas (aim 1)',
      `${refreshes} ${verdict(refreshes === 1)}`,
    ],
    [
      'tool call p50 via a person’s OAuth connection / a static header (500 each)',
      `${percentile(viaOAuth, 0.5).toFixed(3)} / ${percentile(viaHeader, 0.5).toFixed(3)} ms`,
    ],
    ['  added by OAuth with a fresh token (aim < 1 ms)', `${added.toFixed(3)} ms ${verdict(added < 1)}`],
  ]);
});
