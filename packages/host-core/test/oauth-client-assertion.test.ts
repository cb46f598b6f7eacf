import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import {
  type AuthorizationServer,
  type ProtectedServer,
  startAuthorizationServer,
  startProtectedServer,
} from '@ai-assistant/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { OAuthSettings } from '../src/config/server-types.js';
import { McpClientManager } from '../src/mcp/client-manager.js';

const pem = (key: KeyObject) => key.export({ type: 'pkcs8', format: 'pem' }).toString();
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });

/**
 * The operator's client at a real authorization server (oidc-provider) that accepts client
 * assertions signed with ES256 only, as the one in the report advertised; and a protected MCP server.
 */
describe('#43.24 private_key_jwt without signing_algorithm', () => {
  let as: AuthorizationServer;
  let server: ProtectedServer;
  const managers: McpClientManager[] = [];

  beforeAll(async () => {
    as = await startAuthorizationServer({
      clientAuthSigningAlgorithms: ['ES256'],
      clients: [
        {
          client_id: 'host-ec',
          token_endpoint_auth_method: 'private_key_jwt',
          jwks: { keys: [{ ...ec.publicKey.export({ format: 'jwk' }), use: 'sig' }] },
          grant_types: ['client_credentials'],
          response_types: [],
          redirect_uris: [],
        },
      ],
    });
    server = await startProtectedServer(as.issuer);
    as.resources.push(server.url);
  });
  afterEach(async () => {
    for (const manager of managers.splice(0)) await manager.close();
  });
  afterAll(async () => {
    await server?.close();
    await as?.close();
  });

  async function connect(oauth: Partial<OAuthSettings>) {
    const manager = new McpClientManager({ connectTimeoutMs: 10_000 });
    managers.push(manager);
    await manager.connect([
      {
        name: 'ops',
        transport: 'http',
        url: server.url,
        headers: {},
        timeoutMs: 10_000,
        disabled: false,
        oauth: { grant: 'client_credentials', clientId: 'host-ec', issuer: as.issuer, ...oauth },
      },
    ]);
    return manager;
  }

  it('#43.24 an EC P-256 key and no signing_algorithm: the assertion is signed with ES256 and the server is reached', async () => {
    const manager = await connect({ privateKey: pem(ec.privateKey) });
    expect(manager.status()[0]).toMatchObject({ state: 'connected' });
    expect((await manager.callTool('mcp__ops__whoami', {})).text).toBe('you are host-ec');
  }, 30_000);

  it('#43.24 a signing_algorithm that does not fit the key is named, with the one to set', async () => {
    const manager = await connect({ privateKey: pem(ec.privateKey), signingAlgorithm: 'RS256' });
    const [status] = manager.status();
    expect(status?.state).not.toBe('connected');
    expect(status?.reason).toMatch(
      /signing_algorithm "RS256" does not fit the private_key \(an EC P-256 key\): set signing_algorithm to ES256, or leave it out/,
    );
  }, 30_000);

  it('#43.24 a key that can sign none of the algorithms the authorization server accepts is named, with them', async () => {
    const manager = await connect({ privateKey: pem(rsa.privateKey) });
    const [status] = manager.status();
    expect(status?.state).not.toBe('connected');
    expect(status?.reason).toMatch(
      /the authorization server accepts client assertions signed with ES256 \(token_endpoint_auth_signing_alg_values_supported\), and the private_key is an RSA key, which signs RS256, PS256/,
    );
  }, 30_000);
});
