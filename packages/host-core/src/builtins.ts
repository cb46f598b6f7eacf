import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

// Node built-ins host-core needs only now and then, loaded on first use (Node's require caches them):
// importing host-core then costs none of their start-up (crypto alone is about 6 ms; child_process,
// net and dns together about 5).
export const nodeCrypto = () => require('node:crypto') as typeof import('node:crypto');
export const nodeChildProcess = () => require('node:child_process') as typeof import('node:child_process');
export const nodeNet = () => require('node:net') as typeof import('node:net');
export const nodeDns = () => require('node:dns') as typeof import('node:dns');

/** The SHA-256 of `text`, hex or base64url. */
export const sha256Of = (text: string, encoding: 'hex' | 'base64url'): string =>
  nodeCrypto().createHash('sha256').update(text).digest(encoding);
