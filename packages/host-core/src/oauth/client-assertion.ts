import type { AuthorizationServerMetadata, OAuthClientProvider } from '@modelcontextprotocol/client';
import { nodeCrypto } from '../builtins.js';
import type { OAuthSettings } from '../config/server-types.js';
import { AuthorizationError } from './authorization-error.js';

/** A private key as the signer needs it (PKCS#8 PEM), what kind it is, and the algorithms it signs. */
interface SigningKey {
  pkcs8: string;
  kind: string;
  algorithms: string[];
}

/** The JWS algorithms a key of each kind signs with, the usual one first (RFC 7518 §3.1). */
function signingKey(server: string, privateKey: string): SigningKey {
  let key: import('node:crypto').KeyObject;
  try {
    key = nodeCrypto().createPrivateKey(privateKey);
  } catch {
    throw new AuthorizationError(
      server,
      'client authentication',
      'private_key is not a private key in PEM ("-----BEGIN PRIVATE KEY-----", an RSA or EC key)',
    );
  }
  const pkcs8 = key.export({ type: 'pkcs8', format: 'pem' }).toString();
  const curve = key.asymmetricKeyDetails?.namedCurve;
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return {
        pkcs8,
        kind: 'an RSA key',
        algorithms: ['RS256', 'PS256', 'RS384', 'PS384', 'RS512', 'PS512'],
      };
    case 'rsa-pss':
      return { pkcs8, kind: 'an RSA-PSS key', algorithms: ['PS256', 'PS384', 'PS512'] };
    case 'ec': {
      const byCurve: Record<string, [string, string]> = {
        prime256v1: ['P-256', 'ES256'],
        secp384r1: ['P-384', 'ES384'],
        secp521r1: ['P-521', 'ES512'],
      };
      const [name, algorithm] = byCurve[curve ?? ''] ?? [curve ?? 'unknown', undefined];
      return { pkcs8, kind: `an EC ${name} key`, algorithms: algorithm ? [algorithm] : [] };
    }
    default:
      return { pkcs8, kind: `an ${key.asymmetricKeyType ?? 'unknown'} key`, algorithms: [] };
  }
}

/**
 * The algorithm to sign the client assertion with: `configured` when the key signs with it; else the
 * key's usual one, or the first the authorization server accepts
 * (`token_endpoint_auth_signing_alg_values_supported`) that the key signs. Throws naming the field.
 */
export function assertionAlgorithm(
  server: string,
  key: Pick<SigningKey, 'kind' | 'algorithms'>,
  configured: string | undefined,
  metadata: AuthorizationServerMetadata | undefined,
): string {
  const fail = (detail: string) => new AuthorizationError(server, 'client authentication', detail);
  if (key.algorithms.length === 0)
    throw fail(
      `the private_key is ${key.kind}, which cannot sign a client assertion here: use an RSA key or an EC key on P-256, P-384 or P-521`,
    );
  if (configured) {
    if (key.algorithms.includes(configured)) return configured;
    throw fail(
      `signing_algorithm "${configured.slice(0, 20)}" does not fit the private_key (${key.kind}): set signing_algorithm to ${key.algorithms[0]}, or leave it out`,
    );
  }
  const accepted = metadata?.token_endpoint_auth_signing_alg_values_supported;
  if (!accepted?.length) return key.algorithms[0] as string;
  const fitting = key.algorithms.find((algorithm) => accepted.includes(algorithm));
  if (fitting) return fitting;
  throw fail(
    `the authorization server accepts client assertions signed with ${accepted.join(', ').slice(0, 200)} (token_endpoint_auth_signing_alg_values_supported), and the private_key is ${key.kind}, which signs ${key.algorithms.join(', ')}: use a key that signs one of those`,
  );
}

/**
 * The SDK's `private_key_jwt` provider for an operator's `client_credentials` client, signing with
 * the algorithm {@link assertionAlgorithm} picks when the token request is made (the authorization
 * server's metadata is known then). Any PEM private key Node reads is accepted (PKCS#8, PKCS#1, SEC1).
 */
export async function privateKeyJwtProvider(
  server: string,
  oauth: OAuthSettings & { privateKey: string },
): Promise<OAuthClientProvider> {
  const { PrivateKeyJwtProvider, createPrivateKeyJwtAuth } = await import('@modelcontextprotocol/client');
  const clientId = oauth.clientId as string;
  const provider = new PrivateKeyJwtProvider({
    clientId,
    privateKey: oauth.privateKey,
    // Replaced below: the algorithm is chosen per token request.
    algorithm: oauth.signingAlgorithm ?? 'RS256',
    ...(oauth.scope ? { scope: oauth.scope } : {}),
    ...(oauth.issuer ? { expectedIssuer: oauth.issuer } : {}),
  });
  provider.addClientAuthentication = (headers, params, url, metadata) => {
    const key = signingKey(server, oauth.privateKey);
    const sign = createPrivateKeyJwtAuth({
      issuer: clientId,
      subject: clientId,
      privateKey: key.pkcs8,
      alg: assertionAlgorithm(server, key, oauth.signingAlgorithm, metadata),
    });
    return sign(headers, params, url, metadata);
  };
  return provider;
}
