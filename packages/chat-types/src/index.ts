export { HostError, type HostErrorCode } from './errors.js';
export { type Logger, silentLogger } from './logger.js';
export type {
  CompletionOptions,
  ImageContent,
  JsonSchema,
  LLMProvider,
  LLMResponse,
  Message,
  StopReason,
  ToolCall,
  ToolDefinition,
  ToolFile,
  ToolHints,
  ToolResult,
  Usage,
} from './types.js';
