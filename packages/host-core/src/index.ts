// The neutral chat types, the logger and the error base are @ai-assistant/chat-types'; a host needs them
// beside this package, so they are exported here too.
export {
  type CompletionOptions,
  HostError,
  type HostErrorCode,
  type ImageContent,
  type JsonSchema,
  type LLMProvider,
  type LLMResponse,
  type Logger,
  type Message,
  type StopReason,
  silentLogger,
  type ToolCall,
  type ToolDefinition,
  type ToolFile,
  type ToolHints,
  type ToolResult,
  type Usage,
} from '@ai-assistant/chat-types';
export {
  type ApprovalDecision,
  type ApprovalRequest,
  type ChatEvent,
  ChatService,
  type ChatServiceOptions,
  defaultSystemPrompt,
  type RespondInput,
  type RespondResult,
  type SamplingLimits,
  type ToolAuditEntry,
  type TraceEntry,
} from './chat/chat-service.js';
export type { UsagePolicy } from './chat/chat-types.js';
export {
  type Embedder,
  EmbeddingRanker,
  type EmbeddingRankerOptions,
  embeddingRanker,
  type ToolVectorCache,
} from './choice/semantic.js';
export {
  defaultToolChoice,
  describeReason,
  findToolsName,
  firstSentence,
  type OfferReason,
  type SemanticRanker,
  type ToolChoiceSettings,
  ToolChooser,
  type ToolOffer,
} from './choice/tool-choice.js';
export type { ToolOrigin } from './choice/tool-search.js';
export {
  type ApprovalPolicy,
  type BuiltinServerConfig,
  defaultToolTimeoutMs,
  environmentServer,
  environmentServerName,
  isMcpEnabled,
  loadConfiguredServers,
  loadMcpConfig,
  McpConfigError,
  mcpConfigLabel,
  mcpConfigPath,
  type OAuthSettings,
  type OpenApiServerConfig,
  parseMcpConfig,
  type RemoteServerConfig,
  type ServerConfig,
  type StdioServerConfig,
  type TransportKind,
} from './config/mcp-config.js';
export {
  type ChatLoopSettings,
  chatLoopFromEnvironment,
  EnvironmentError,
  loadDotEnv,
  wholeNumber,
} from './environment.js';
export { CancelledError, ToolCallError, type ToolCallErrorDetails } from './errors.js';
export { capResponse, ResponseTooLargeError } from './mcp/capped-response.js';
export {
  type AutoContextTool,
  type CallToolOptions,
  type FilledPrompt,
  hostToolNames,
  McpClientManager,
  type McpClientManagerOptions,
  type PromptEntry,
  type ResolvedTool,
  type ResourceEntry,
  type ResourceTemplateEntry,
  type ServerEvent,
  type ServerState,
  type ServerStatus,
  type ToolCallOutcome,
} from './mcp/client-manager.js';
export { type HostAdditions, type Person, serverEnabled } from './mcp/person.js';
export type { PersonalPoolOptions, PersonKey } from './mcp/personal-pool.js';
export { parsePromptArguments } from './mcp/prompt-arguments.js';
export { type StartMcpOptions, startMcpFromEnvironment } from './mcp/start-mcp.js';
export type { ToolCatalogCache } from './mcp/tool-catalog-cache.js';
export type { McpHost, McpView } from './mcp-host.js';
export { AddressAllowlist, checkAddress, guardedFetch, RefusedAddressError } from './net/address-guard.js';
export { AuthorizationError } from './oauth/authorization-error.js';
export type { OAuthGrant } from './oauth/grant.js';
export type { OAuthOptions, OAuthService } from './oauth/oauth-service.js';
export {
  memoryOAuthStore,
  type OAuthRecords,
  type OAuthStore,
  oauthStoreOver,
} from './oauth/oauth-store.js';
export { environmentSecrets, Redactor } from './redaction.js';
export {
  type AppResource,
  type AppTool,
  type AppToolResult,
  type ElicitationAnswer,
  type ElicitationRequest,
  maxAppResultBytes,
  type RequestTokens,
  type SamplingAnswer,
  type SamplingRequest,
  type ToolHost,
  type ToolProgress,
} from './tool-host.js';
export { type BuiltinImplementation, builtinTools } from './tools/builtin-tools.js';
export { compileOpenApi, OpenApiSpecError } from './tools/openapi-tools.js';
export { checkArguments } from './tools/validate-arguments.js';
