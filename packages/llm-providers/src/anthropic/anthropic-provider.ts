import type {
  CompletionOptions,
  LLMProvider,
  LLMResponse,
  Logger,
  Message,
  ToolDefinition,
} from '@ai-assistant/chat-types';
import Anthropic from '@anthropic-ai/sdk';
import { compileTools, type SchemaWarning, warnOncePerTool } from '../compile-tool-schema.js';
import { type ProviderName, type Redact, redactKey, toProviderError } from '../provider-error.js';
import { defaultMaxTools, selectToolsLogged } from '../select-tools.js';
import { visionByDefault } from '../vision.js';
import { collectAnthropicStream, fromAnthropicResponse } from './convert-from-anthropic-response.js';
import { toAnthropicRequest } from './convert-to-anthropic-request.js';

/** Options of {@link AnthropicProvider}. */
export interface AnthropicProviderOptions {
  model: string;
  apiKey?: string;
  baseURL?: string;
  timeout?: number;
  /** SDK retries on 408/409/429/5xx and connection errors (default 2). */
  maxRetries?: number;
  /** Output token cap (the API requires one; default 4096). */
  maxTokens?: number;
  fetch?: typeof fetch;
  /** Most tools sent in one request (default 128, what OpenAI accepts); the most relevant are kept. */
  maxTools?: number;
  /** Removes secrets from vendor error text: pass host-core's `redactor.redact` (default: this apiKey only). */
  redact?: Redact;
  logger?: Logger;
  /** Whether the model reads images (tools' images are then sent); default: by the model's name. */
  vision?: boolean;
}

/** Anthropic Messages with tool use, on the official `@anthropic-ai/sdk`. */
export class AnthropicProvider implements LLMProvider {
  readonly name: ProviderName = 'anthropic';
  readonly supportsImages: boolean;
  private readonly client: Anthropic;
  private readonly warn: SchemaWarning;

  constructor(private readonly options: AnthropicProviderOptions) {
    this.supportsImages = options.vision ?? visionByDefault(options.model);
    this.client = new Anthropic({
      apiKey: options.apiKey ?? '',
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
      ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
      ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      logLevel: 'off',
    });
    this.warn = warnOncePerTool(this.name, options.logger);
  }

  complete(messages: Message[], options: CompletionOptions = {}): Promise<LLMResponse> {
    return this.send(messages, [], options);
  }

  completeWithTools(
    messages: Message[],
    tools: ToolDefinition[],
    options: CompletionOptions = {},
  ): Promise<LLMResponse> {
    const chosen = selectToolsLogged(
      tools,
      messages,
      this.options.maxTools ?? defaultMaxTools,
      this.name,
      this.options.logger,
    );
    return this.send(messages, compileTools(chosen, {}, this.warn), options);
  }

  private async send(
    messages: Message[],
    tools: ToolDefinition[],
    options: CompletionOptions,
  ): Promise<LLMResponse> {
    const stream = options.onTextDelta !== undefined;
    const request = toAnthropicRequest(messages, tools, {
      model: this.options.model,
      maxTokens: options.maxTokens ?? this.options.maxTokens ?? 4096,
      temperature: options.temperature,
      stream,
      toolChoice: options.toolChoice,
    });
    try {
      if (request.stream) {
        const events = await this.client.messages.create(request, { signal: options.signal });
        return await collectAnthropicStream(events, options.onTextDelta);
      }
      const message = await this.client.messages.create(request, { signal: options.signal });
      return fromAnthropicResponse(message);
    } catch (error) {
      throw toProviderError(
        this.name,
        error,
        this.options.redact ?? redactKey(this.options.apiKey),
        this.client.baseURL,
      );
    }
  }
}
