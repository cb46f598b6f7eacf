// Internals that the repository's own tests and apps use. Not part of the public API: they may change
// in any release. The public API is src/index.ts, as the README documents it.
export { defaultResultBudget, formatToolResult, truncateMiddle } from './mcp/format-tool-result.js';
export { fillHeaders } from './mcp/header-templates.js';
export { descendantsOf } from './mcp/process-tree.js';
export { encodeToolName } from './mcp/tool-names.js';
export { guardedAgent, isRefusedAddress } from './net/address-guard.js';
export { parseGrant } from './oauth/grant.js';
export { CalculationError, calculate } from './tools/calculate.js';
export { openApiOperations } from './tools/openapi-tools.js';
export { checkArguments } from './tools/validate-arguments.js';
