import { sha256Of } from '../builtins.js';

const maxLength = 64;
const valid = /^[a-zA-Z0-9_-]{1,64}$/;

function shortHash(text: string): string {
  return sha256Of(text, 'hex').slice(0, 8);
}

/**
 * The provider-safe name of a server's tool: `mcp__<server>__<tool>`. When that is not already
 * valid (`^[a-zA-Z0-9_-]{1,64}$`), or the server name itself contains `__` (which could make two
 * pairs read alike), invalid characters become `_`, the name is cut to fit, and an 8-hex hash of the
 * exact pair is appended. The name depends on the pair alone, so adding a server never renames a tool.
 */
export function encodeToolName(server: string, tool: string, prefix = 'mcp'): string {
  const plain = `${prefix}__${server}__${tool}`;
  if (valid.test(plain) && !server.includes('__')) return plain;
  const suffix = `_${shortHash(`${server}\u0000${tool}`)}`;
  const sanitized = plain.replace(/[^a-zA-Z0-9_-]/g, '_');
  return `${sanitized.slice(0, maxLength - suffix.length)}${suffix}`;
}
