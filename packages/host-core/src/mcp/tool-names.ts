import { sha256Of } from '../builtins.js';

const maxLength = 64;
const valid = /^[a-zA-Z0-9_-]{1,64}$/;

function shortHash(text: string): string {
  return sha256Of(text, 'hex').slice(0, 8);
}

/** How a hashed name ends: a plain name that ends so is hashed too, so the two kinds never meet. */
const hashedEnding = /_[0-9a-f]{8}$/;

/**
 * The provider-safe name of a server's tool: `mcp__<server>__<tool>`. A plain name reads back as one
 * pair only: the server is whatever comes before the first `__` after the prefix. When that does not
 * hold (the server name contains `__` or ends with `_`: `ops_`+`notify` would read as `ops`+`_notify`),
 * when the name is not valid (`^[a-zA-Z0-9_-]{1,64}$`), or when it already ends like a hashed name,
 * invalid characters become `_`, the name is cut to fit, and an 8-hex hash of the exact pair is
 * appended. The name depends on the pair alone, so adding a server never renames a tool.
 */
export function encodeToolName(server: string, tool: string, prefix = 'mcp'): string {
  const plain = `${prefix}__${server}__${tool}`;
  const readsBack = server !== '' && !server.includes('__') && !server.endsWith('_');
  if (valid.test(plain) && readsBack && !hashedEnding.test(plain)) return plain;
  const suffix = `_${shortHash(`${server}\u0000${tool}`)}`;
  const sanitized = plain.replace(/[^a-zA-Z0-9_-]/g, '_');
  return `${sanitized.slice(0, maxLength - suffix.length)}${suffix}`;
}
