/**
 * The SDK's client auth, loaded on first use: it is a fifth of host-core's import time, and a host
 * without OAuth servers never needs it.
 */
export const sdkAuth = () => import('@modelcontextprotocol/client');

/**
 * The parameters of a `WWW-Authenticate: Bearer …` challenge (RFC 6750 §3): `error`, `scope`,
 * `resource_metadata`, … (quoted or not). Enough for a 403 `insufficient_scope` step-up, synchronously.
 */
export function bearerChallenge(header: string | null): Record<string, string> {
  if (!header || !/^\s*Bearer\b/i.test(header)) return {};
  const parameters: Record<string, string> = {};
  for (const match of header
    .replace(/^\s*Bearer\s*/i, '')
    .matchAll(/([A-Za-z_]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g))
    parameters[(match[1] as string).toLowerCase()] = (match[2] ?? match[3] ?? '').replace(/\\(.)/g, '$1');
  return parameters;
}
