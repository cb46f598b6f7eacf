import { rmSync } from 'node:fs';
import { openStore, type Store } from '@ai-assistant/store';
import { storeDatabase } from '@ai-assistant/store/testing';
import {
  authorize,
  clock,
  embeddedStoreFolder,
  type FakeAuthOptions,
  recordingLogger,
  startFakeAuth,
} from '@ai-assistant/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RemoteServerConfig } from '../src/config/server-types.js';
import { parseGrant } from '../src/oauth/grant.js';
import { OAuthService } from '../src/oauth/oauth-service.js';
import { memoryOAuthStore, type OAuthStore, oauthStoreOver } from '../src/oauth/oauth-store.js';
import { Redactor } from '../src/redaction.js';
import { authorizationFailure } from './authorization-failure.js';

// Refreshing a person's OAuth tokens: at the grant's own authorization server only, one refresh per
// expiry or refusal across replicas, each refresh its own claim, and a grant dropped only when the
// authorization server says it is dead (RFC 6749 §5.2 invalid_grant / invalid_client).

const redirectUrl = 'http://127.0.0.1:9/oauth/callback';
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const close of closers.splice(0).reverse()) await close();
});

let dataDir: string;
let store: Store;
beforeAll(async () => {
  dataDir = embeddedStoreFolder('oauth-refresh-');
  store = await openStore({ dataDir, env: {} });
}, 60_000);
afterAll(async () => {
  await store?.close();
  rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
});

/** The store's OAuth part, as the apps build it: grants are credentials, claims are event claims. */
const realOAuthStore = (): OAuthStore => oauthStoreOver(store.credentials, store.oauth);

/** Refresh claims still in the store. */
const refreshClaims = async () =>
  (
    await storeDatabase(store)
      .selectFrom('event_claims')
      .select('event_id')
      .where('event_id', 'like', 'oauth-refresh:%')
      .execute()
  ).length;

/** The OAuth client alone, against the adjustable fake authorization server. */
async function serviceOver(fake: FakeAuthOptions, oauthStore: OAuthStore) {
  const auth = await startFakeAuth(fake);
  closers.push(auth.close);
  const time = clock();
  const oauth = new OAuthService({
    store: oauthStore,
    redirectUrl,
    redactor: new Redactor(),
    logger: recordingLogger(),
    now: time.now,
  });
  const config: RemoteServerConfig = {
    name: 'tracker',
    transport: 'http',
    url: auth.url,
    headers: {},
    timeoutMs: 5000,
    disabled: false,
    oauth: { grant: 'authorization_code' },
  };
  return { auth, time, oauth, config };
}

describe('refreshing a person’s tokens (the OAuth client)', () => {
  it('#43.3 an authorization server that does not rotate refresh tokens: every refresh works, and no claim outlives it', async () => {
    for (const oauthStore of [realOAuthStore(), memoryOAuthStore()]) {
      const person = { workspace: 'T43', user: `U3-${closers.length}` };
      const { oauth, config, auth, time } = await serviceOver({ rotate: false, expiresIn: 300 }, oauthStore);
      await oauth.complete(await authorize((await oauth.begin(person, config)).url), () => config);
      for (let round = 1; round <= 4; round++) {
        time.advance(300_000);
        expect((await oauth.tokens(person, 'tracker'))?.access_token).toBe(
          `secret-access-${round + 1}-abcdef`,
        );
      }
      expect(auth.counts.refresh_token).toBe(4);
      // The refresh token the server never rotated is kept, and is the only one ever presented.
      const grant = parseGrant(await oauthStore.grant(person.workspace, person.user, 'tracker'));
      expect(grant?.tokens.refresh_token).toBe('secret-refresh-1-abcdef');
    }
    expect(await refreshClaims()).toBe(0);
  }, 30_000);

  it('#43.5 a refresh that meets a 503, or a dropped connection, keeps the grant and says to try again', async () => {
    for (const [outage, oauthStore] of [
      ['unavailable', realOAuthStore()],
      ['drop', realOAuthStore()],
      ['unavailable', memoryOAuthStore()],
    ] as const) {
      const person = { workspace: 'T43', user: `U5-${outage}-${closers.length}` };
      const fake: FakeAuthOptions = { expiresIn: 300 };
      const { oauth, config, auth, time } = await serviceOver(fake, oauthStore);
      await oauth.complete(await authorize((await oauth.begin(person, config)).url), () => config);
      const connected = await oauthStore.grant('T43', person.user, 'tracker');
      time.advance(300_000);
      fake.token = outage;
      const error = await authorizationFailure(oauth.tokens(person, 'tracker'));
      expect(error.reconnect).toBe(false);
      expect(error.message).toMatch(/connecting "tracker" failed at the refresh: .*try again/);
      expect(error.message).not.toMatch(/connect the server again|secret-/);
      // The grant is as it was: the person stays connected.
      expect(await oauthStore.grant('T43', person.user, 'tracker')).toBe(connected);
      // The same tokens are refreshed again once the server is back (the failed attempt's claim is gone).
      fake.token = 'ok';
      expect((await oauth.tokens(person, 'tracker'))?.access_token).toBe('secret-access-2-abcdef');
      expect(auth.counts.refresh_token).toBe(2);
    }
    expect(await refreshClaims()).toBe(0);
  }, 30_000);

  it('#43.5 invalid_grant and invalid_client (RFC 6749 §5.2) drop the grant: the person connects again', async () => {
    for (const refusal of ['invalid_grant', 'invalid_client'] as const) {
      const person = { workspace: 'T43', user: `U5-${refusal}` };
      const { oauth, config, time } = await serviceOver({ token: refusal, expiresIn: 300 }, realOAuthStore());
      await oauth.complete(await authorize((await oauth.begin(person, config)).url), () => config);
      time.advance(300_000);
      const error = await authorizationFailure(oauth.tokens(person, 'tracker'));
      expect(error.reconnect).toBe(true);
      expect(error.message).toMatch(new RegExp(`${refusal}.*connect the server again`));
      expect((await store.credentials.of('T43', person.user)).secrets.tracker).toBeUndefined();
    }
  }, 30_000);
});
