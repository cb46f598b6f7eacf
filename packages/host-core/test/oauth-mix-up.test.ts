import { authorize, startFakeAuth } from '@ai-assistant/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import type { RemoteServerConfig } from '../src/config/server-types.js';
import { OAuthService } from '../src/oauth/oauth-service.js';
import { memoryOAuthStore } from '../src/oauth/oauth-store.js';
import { Redactor } from '../src/redaction.js';
import { authorizationFailure } from './authorization-failure.js';

const person = { workspace: 'T1', user: 'U1' };
const redirectUrl = 'http://127.0.0.1:9/oauth/callback';
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const server = (
  name: string,
  url: string,
  oauth: RemoteServerConfig['oauth'] = { grant: 'authorization_code' },
) =>
  ({
    name,
    transport: 'http',
    url,
    headers: {},
    timeoutMs: 5000,
    disabled: false,
    oauth,
  }) as RemoteServerConfig;

describe('#43.6 mix-up: a redirect URI per authorization server', () => {
  it('#43.6 an evil server’s authorization server forwarding to an honest one without iss: the callback is refused, evil gets no code', async () => {
    const honest = await startFakeAuth({ withoutIss: true });
    closers.push(honest.close);
    const oauth = new OAuthService({ store: memoryOAuthStore(), redirectUrl, redactor: new Redactor() });
    const configs = new Map<string, RemoteServerConfig>([['honest', server('honest', honest.url)]]);
    // The person has connected the honest server: the client registered there is known (public, in fact).
    const first = new URL((await oauth.begin(person, configs.get('honest') as RemoteServerConfig)).url);
    await oauth.complete(await authorize(first.toString()), (name) => configs.get(name));
    const honestRedirect = first.searchParams.get('redirect_uri') as string;

    // Evil's authorization server sends the browser on to the honest one, as the honest client.
    const evil = await startFakeAuth({
      withoutIss: true,
      forward: { to: honest.base, clientId: 'client-1', redirectUri: honestRedirect },
    });
    closers.push(evil.close);
    configs.set('evil', server('evil', evil.url));
    const { url } = await oauth.begin(person, configs.get('evil') as RemoteServerConfig);
    expect(new URL(url).searchParams.get('redirect_uri')).not.toBe(honestRedirect);
    const back = await authorize(await followOnce(url));
    const error = await authorizationFailure(oauth.complete(back, (name) => configs.get(name)));
    expect(error.message).toBe(
      'connecting "evil" failed at the redirect: the redirect came back to another address',
    );
    // The honest code and the verifier never reached evil's token endpoint.
    expect(evil.counts.authorization_code).toBe(0);
  }, 30_000);

  it('#43.6 with client ID metadata documents: a document, client ID and redirect URI per authorization server', async () => {
    const cimd = { client_id_metadata_document_supported: true };
    const honest = await startFakeAuth({ withoutIss: true, metadata: cimd });
    closers.push(honest.close);
    const oauth = new OAuthService({
      store: memoryOAuthStore(),
      redirectUrl,
      clientMetadataUrl: 'https://bot.example.test/oauth/client-metadata/{as}.json',
      redactor: new Redactor(),
    });
    const configs = new Map<string, RemoteServerConfig>([['honest', server('honest', honest.url)]]);
    const first = new URL((await oauth.begin(person, configs.get('honest') as RemoteServerConfig)).url);
    const honestClient = first.searchParams.get('client_id') as string;
    const honestRedirect = first.searchParams.get('redirect_uri') as string;
    const id = /\/client-metadata\/([\w-]{16})\.json$/.exec(honestClient)?.[1] as string;
    expect(id).toBeDefined();
    // The document served for that client ID names that client ID and that redirect URI only.
    expect(oauth.clientMetadataDocument(id)).toMatchObject({
      client_id: honestClient,
      redirect_uris: [honestRedirect],
    });

    const evil = await startFakeAuth({
      withoutIss: true,
      metadata: cimd,
      forward: { to: honest.base, clientId: honestClient, redirectUri: honestRedirect },
    });
    closers.push(evil.close);
    configs.set('evil', server('evil', evil.url));
    const { url } = await oauth.begin(person, configs.get('evil') as RemoteServerConfig);
    expect(new URL(url).searchParams.get('client_id')).not.toBe(honestClient);
    const back = await authorize(await followOnce(url));
    const error = await authorizationFailure(oauth.complete(back, (name) => configs.get(name)));
    expect(error.message).toBe(
      'connecting "evil" failed at the redirect: the redirect came back to another address',
    );
    expect(evil.counts.authorization_code).toBe(0);
  }, 30_000);

  it('#43.6 an operator’s pre-registered client keeps the redirect URI it was registered with', async () => {
    const fake = await startFakeAuth();
    closers.push(fake.close);
    const oauth = new OAuthService({ store: memoryOAuthStore(), redirectUrl, redactor: new Redactor() });
    const config = server('tracker', fake.url, { grant: 'authorization_code', clientId: 'operator-client' });
    const { url } = await oauth.begin(person, config);
    expect(new URL(url).searchParams.get('redirect_uri')).toBe(redirectUrl);
    await oauth.complete(await authorize(url), () => config);
    expect((await oauth.tokens(person, 'tracker'))?.access_token).toBe('secret-access-1-abcdef');
  }, 30_000);
});

/** The first hop of the browser (evil's authorization endpoint): where it sends the person on. */
async function followOnce(url: string): Promise<string> {
  const response = await fetch(url, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (!location) throw new Error(`no redirect (HTTP ${response.status})`);
  return location;
}
