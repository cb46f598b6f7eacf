import {
  authorize,
  clock,
  type FakeAuthOptions,
  recordingLogger,
  startFakeAuth,
} from '@ai-assistant/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import type { RemoteServerConfig } from '../src/config/server-types.js';
import { parseGrant } from '../src/oauth/grant.js';
import { OAuthService } from '../src/oauth/oauth-service.js';
import { memoryOAuthStore, type OAuthStore } from '../src/oauth/oauth-store.js';
import { Redactor } from '../src/redaction.js';
import { authorizationFailure } from './authorization-failure.js';

const person = { workspace: 'T1', user: 'U1' };
const redirectUrl = 'http://127.0.0.1:9/oauth/callback';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function setUp(fake: FakeAuthOptions = {}, store: OAuthStore = memoryOAuthStore()) {
  const auth = await startFakeAuth(fake);
  closers.push(auth.close);
  const time = clock();
  const logger = recordingLogger();
  const service = (shared = store) =>
    new OAuthService({ store: shared, redirectUrl, redactor: new Redactor(), logger, now: time.now });
  const config: RemoteServerConfig = {
    name: 'tracker',
    transport: 'http',
    url: auth.url,
    headers: {},
    timeoutMs: 5000,
    disabled: false,
    oauth: { grant: 'authorization_code' },
  };
  return { auth, time, logger, store, service, config, oauth: service() };
}

describe('MCP authorization: the OAuth client', () => {
  it('connects a person: discovery, registration, PKCE, the redirect; the grant is their credential', async () => {
    const { oauth, config, store, auth } = await setUp();
    const { url } = await oauth.begin(person, config);
    const authorizationUrl = new URL(url);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(auth.url);
    // The host's redirect URI, marked for this authorization server (a mix-up defence).
    expect(authorizationUrl.searchParams.get('redirect_uri')).toMatch(
      /^http:\/\/127\.0\.0\.1:9\/oauth\/callback\?as=[\w-]{16}$/,
    );
    const done = await oauth.complete(await authorize(url), () => config);
    expect(done).toEqual({ ...person, server: 'tracker' });
    const grant = parseGrant(await store.grant('T1', 'U1', 'tracker'));
    expect(grant?.tokens.access_token).toBe('secret-access-1-abcdef');
    expect((await oauth.tokens(person, 'tracker'))?.access_token).toBe('secret-access-1-abcdef');
    expect(auth.counts).toMatchObject({ registrations: 1, authorization_code: 1, refresh_token: 0 });
  });

  it('refuses an authorization server on plain HTTP before sending it anything', async () => {
    const { oauth, config } = await setUp({ authorizationServer: 'http://auth.example.test/' });
    const error = await authorizationFailure(oauth.begin(person, config));
    expect(error.message).toMatch(/connecting "tracker" failed at the discovery: .*not on https/);
  });

  it('refuses metadata that names another issuer, or a plain-HTTP endpoint', async () => {
    const wrongIssuer = await setUp({ issuer: 'https://elsewhere.example.test' });
    expect((await authorizationFailure(wrongIssuer.oauth.begin(person, wrongIssuer.config))).message).toMatch(
      /failed at the discovery: .*issuer.*https:\/\/elsewhere\.example\.test/i,
    );
    const plainEndpoint = await setUp({ metadata: { token_endpoint: 'http://tokens.example.test/token' } });
    expect(
      (await authorizationFailure(plainEndpoint.oauth.begin(person, plainEndpoint.config))).message,
    ).toMatch(/token_endpoint http:\/\/tokens\.example\.test\/token is not on https/);
  });

  it('a state is single-use, expires in 10 minutes, and must come back to the exact redirect URI', async () => {
    const { oauth, config, time } = await setUp();
    const unknown = await authorizationFailure(
      oauth.complete(`${redirectUrl}?code=x&state=made-up`, () => config),
    );
    expect(unknown.message).toMatch(/unknown or already used state/);

    const back = await authorize((await oauth.begin(person, config)).url);
    await oauth.complete(back, () => config);
    expect((await authorizationFailure(oauth.complete(back, () => config))).message).toMatch(
      /unknown or already used state/,
    );

    const late = await authorize((await oauth.begin(person, config)).url);
    time.advance(10 * 60_000 + 1);
    expect((await authorizationFailure(oauth.complete(late, () => config))).message).toMatch(
      /longer than 10 minutes/,
    );

    const elsewhere = new URL(await authorize((await oauth.begin(person, config)).url));
    elsewhere.pathname = '/other/callback';
    expect((await authorizationFailure(oauth.complete(elsewhere, () => config))).message).toMatch(
      /another address/,
    );
  });

  it('an error from the authorization server, or another issuer on the redirect, is named; nothing is stored', async () => {
    const denied = await setUp({
      redirectExtra: { error: 'access_denied', error_description: 'the user said no' },
    });
    const error = await authorizationFailure(
      denied.oauth.complete(
        await authorize((await denied.oauth.begin(person, denied.config)).url),
        () => denied.config,
      ),
    );
    expect(error.message).toBe(
      'connecting "tracker" failed at the authorization: the authorization server answered access_denied: the user said no',
    );
    expect(await denied.store.grant('T1', 'U1', 'tracker')).toBeUndefined();

    const mixUp = await setUp({ redirectExtra: { iss: 'https://attacker.example.test' } });
    const mixed = await authorizationFailure(
      mixUp.oauth.complete(
        await authorize((await mixUp.oauth.begin(person, mixUp.config)).url),
        () => mixUp.config,
      ),
    );
    expect(mixed.message).toMatch(/another issuer \(https:\/\/attacker\.example\.test\)/);
  });

  it('a token endpoint answering garbage fails at the token step', async () => {
    const { oauth, config, store } = await setUp({ token: 'garbage' });
    const error = await authorizationFailure(
      oauth.complete(await authorize((await oauth.begin(person, config)).url), () => config),
    );
    expect(error.step).toBe('token');
    expect(await store.grant('T1', 'U1', 'tracker')).toBeUndefined();
  });

  it('50 concurrent turns on an expired token, on two replicas, make one refresh; the rotated token is stored', async () => {
    const { service, config, auth, time, store } = await setUp({ expiresIn: 600 });
    const first = service();
    const second = service();
    await first.complete(await authorize((await first.begin(person, config)).url), () => config);
    // Both replicas have read the grant before it expires.
    await Promise.all([first.tokens(person, 'tracker'), second.tokens(person, 'tracker')]);
    time.advance(600_000);
    const tokens = await Promise.all(
      Array.from({ length: 50 }, (_, index) => (index % 2 ? first : second).tokens(person, 'tracker')),
    );
    expect(auth.counts.refresh_token).toBe(1);
    expect(new Set(tokens.map((token) => token?.access_token))).toEqual(new Set(['secret-access-2-abcdef']));
    expect(parseGrant(await store.grant('T1', 'U1', 'tracker'))?.tokens.refresh_token).toBe(
      'secret-refresh-2-abcdef',
    );
  });

  it('a refused refresh means connect again: the grant is removed and the error says so', async () => {
    const { oauth, config, time, store } = await setUp({ token: 'invalid_grant', expiresIn: 60 });
    await oauth.complete(await authorize((await oauth.begin(person, config)).url), () => config);
    time.advance(60_000);
    const error = await authorizationFailure(oauth.tokens(person, 'tracker'));
    expect(error.reconnect).toBe(true);
    expect(error.message).toMatch(/invalid_grant.*connect the server again/);
    expect(await store.grant('T1', 'U1', 'tracker')).toBeUndefined();
  });

  it('disconnect revokes the tokens at the authorization server and forgets them', async () => {
    const { oauth, config, auth, store } = await setUp();
    await oauth.complete(await authorize((await oauth.begin(person, config)).url), () => config);
    expect(await oauth.disconnect(person, 'tracker')).toBe(true);
    expect(auth.revoked).toEqual(['secret-refresh-1-abcdef', 'secret-access-1-abcdef']);
    expect(await store.grant('T1', 'U1', 'tracker')).toBeUndefined();
    expect(await oauth.tokens(person, 'tracker')).toBeUndefined();
  });

  it('no token reaches an error or a log line', async () => {
    const { oauth, config, time, logger } = await setUp({ token: 'invalid_grant', expiresIn: 60 });
    await oauth.complete(await authorize((await oauth.begin(person, config)).url), () => config);
    time.advance(60_000);
    const error = await authorizationFailure(oauth.tokens(person, 'tracker'));
    const seen = JSON.stringify([error.message, String(error.cause ?? ''), logger.lines]);
    expect(seen).not.toMatch(/secret-(access|refresh)/);
  });
});
