import { authorize, type FakeAuthOptions, recordingLogger, startFakeAuth } from '@ai-assistant/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import type { RemoteServerConfig } from '../src/config/server-types.js';
import { AddressAllowlist } from '../src/net/address-guard.js';
import { OAuthService } from '../src/oauth/oauth-service.js';
import { memoryOAuthStore } from '../src/oauth/oauth-store.js';
import { Redactor } from '../src/redaction.js';
import { authorizationFailure } from './authorization-failure.js';

const person = { workspace: 'T1', user: 'U1' };
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** An OAuth client whose requests each have 2 s (the default is 15 s), against the fake with one hostile path. */
async function setUp(fake: FakeAuthOptions) {
  const auth = await startFakeAuth(fake);
  closers.push(auth.close);
  const logger = recordingLogger();
  const oauth = new OAuthService({
    store: memoryOAuthStore(),
    redirectUrl: 'http://127.0.0.1:9/oauth/callback',
    redactor: new Redactor(),
    logger,
    limits: { timeoutMs: 2000 },
  });
  // A workspace's server (as an admin's Test sees it): reached through the address guard.
  const config: RemoteServerConfig = {
    name: 'crm',
    transport: 'http',
    url: auth.url,
    headers: {},
    timeoutMs: 5000,
    disabled: false,
    oauth: { grant: 'authorization_code' },
    publicAddressesOnly: new AddressAllowlist(['127.0.0.1']),
  };
  return { auth, oauth, config, logger };
}

const metadataPath = '/.well-known/oauth-protected-resource/mcp';
const megabyte = 1024 * 1024;

describe('#43.10 OAuth requests have a size cap and a deadline each', () => {
  it('#43.10 an admin’s Test of a server whose resource metadata never ends reads about 1 MB of it and says why', async () => {
    const { auth, oauth, config } = await setUp({ hostile: { path: metadataPath, body: 'endless' } });
    const error = await authorizationFailure(oauth.probe(config));
    expect(error.message).toMatch(
      /connecting "crm" failed at the discovery: the answer of http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp is larger than 1 MB/,
    );
    // What the server managed to hand to the socket: the cap, plus what the connection buffers.
    expect(auth.hostile.sent).toBeLessThan(16 * megabyte);
  }, 60_000);

  it('#43.10 an admin’s Test of a server whose resource metadata never finishes ends at the deadline, naming it', async () => {
    const { oauth, config } = await setUp({ hostile: { path: metadataPath, body: 'stall' } });
    const error = await authorizationFailure(oauth.probe(config));
    expect(error.message).toMatch(
      /connecting "crm" failed at the discovery: http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp did not answer within 2 s/,
    );
  }, 60_000);

  it('#43.10 a token endpoint that streams forever fails the sign-in at the token step; nothing is stored', async () => {
    const { auth, oauth, config } = await setUp({ hostile: { path: '/token', body: 'endless' } });
    const back = await authorize((await oauth.begin(person, config)).url);
    const error = await authorizationFailure(oauth.complete(back, () => config));
    expect(error.step).toBe('token');
    expect(error.message).toMatch(/the answer of http:\/\/127\.0\.0\.1:\d+\/token is larger than 1 MB/);
    expect(auth.hostile.sent).toBeLessThan(16 * megabyte);
    expect(await oauth.tokens(person, 'crm')).toBeUndefined();
  }, 60_000);

  it('#43.10 a revocation endpoint whose error never ends: disconnect still forgets the tokens, and the log says why', async () => {
    const { auth, oauth, config, logger } = await setUp({
      hostile: { path: '/revoke', body: 'endless', status: 400 },
    });
    await oauth.complete(await authorize((await oauth.begin(person, config)).url), () => config);
    expect(await oauth.disconnect(person, 'crm', config)).toBe(true);
    expect(await oauth.tokens(person, 'crm')).toBeUndefined();
    expect(JSON.stringify(logger.lines)).toMatch(/\/revoke is larger than 1 MB/);
    expect(auth.hostile.sent).toBeLessThan(16 * megabyte);
  }, 60_000);
});
