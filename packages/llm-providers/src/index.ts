export { AnthropicProvider, type AnthropicProviderOptions } from './anthropic/anthropic-provider.js';
export {
  collectAnthropicStream,
  fromAnthropicResponse,
  mapAnthropicStopReason,
} from './anthropic/convert-from-anthropic-response.js';
export { type AnthropicRequest, toAnthropicRequest } from './anthropic/convert-to-anthropic-request.js';
export { type CompileOptions, compileToolSchema, compileTools } from './compile-tool-schema.js';
export {
  createProviderFromEnv,
  defaultModels,
  llmSetupHint,
  ProviderConfigError,
} from './create-provider-from-env.js';
export { normalizeToolCalls, type RawToolCall } from './normalize-tool-calls.js';
export {
  extractTextToolCalls,
  fromOpenAIResponse,
  mapOpenAIFinishReason,
  stripThinking,
} from './openai/convert-from-openai-response.js';
export { type OpenAIRequest, toOpenAIRequest } from './openai/convert-to-openai-request.js';
export {
  defaultEmbeddingModel,
  embeddingBatches,
  OpenAICompatibleProvider,
  OpenAIProvider,
  type OpenAIProviderOptions,
} from './openai/openai-provider.js';
export { collectOpenAIStream } from './openai/openai-stream.js';
export {
  isRetryableStatus,
  LLMProviderError,
  type LLMProviderErrorOptions,
  type ProviderName,
  type Redact,
  redactKey,
  toProviderError,
} from './provider-error.js';
