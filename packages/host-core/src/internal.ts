// Internals that the repository's own tests in other packages use. Not part of the public API: they may
// change in any release. The public API is src/index.ts, as the README documents it.
export { descendantsOf } from './mcp/process-tree.js';
export { guardedAgent, isRefusedAddress } from './net/address-guard.js';
export { parseGrant } from './oauth/grant.js';
