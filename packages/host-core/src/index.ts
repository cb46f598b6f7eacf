export {
  ChatCancelledError,
  type ChatEvent,
  ChatService,
  type ChatServiceOptions,
  defaultSystemPrompt,
  type RespondInput,
  type RespondResult,
  type ToolHost,
  type TraceEntry,
} from './chat/chat-service.js';
export { checkArguments } from './chat/validate-arguments.js';
export {
  defaultToolTimeoutMs,
  isMcpEnabled,
  loadMcpConfig,
  McpConfigError,
  mcpConfigPath,
  parseMcpConfig,
  type RemoteServerConfig,
  type ServerConfig,
  type StdioServerConfig,
  type TransportKind,
} from './config/mcp-config.js';
export { type Logger, silentLogger } from './logger.js';
export {
  type AutoContextTool,
  type CallToolOptions,
  McpClientManager,
  type McpClientManagerOptions,
  type ServerState,
  type ServerStatus,
  type ToolCallOutcome,
} from './mcp/client-manager.js';
export {
  McpToolCancelledError,
  McpToolError,
  McpToolExecutionError,
  McpToolNotFoundError,
  McpToolTimeoutError,
} from './mcp/errors.js';
export { defaultResultBudget, formatToolResult, truncateMiddle } from './mcp/format-tool-result.js';
export { descendantsOf } from './mcp/process-tree.js';
export { type StartMcpOptions, startMcpFromEnvironment } from './mcp/start-mcp.js';
export { encodeToolName } from './mcp/tool-names.js';
export type {
  CompletionOptions,
  JsonSchema,
  LLMProvider,
  LLMResponse,
  Message,
  StopReason,
  ToolCall,
  ToolDefinition,
  ToolResult,
  Usage,
} from './types.js';
