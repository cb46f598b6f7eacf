import type {
  CompletionOptions,
  LLMProvider,
  LLMResponse,
  Logger,
  Message,
  ToolDefinition,
} from '@ai-assistant/chat-types';
import OpenAI from 'openai';
import { compileTools, type SchemaWarning, warnOncePerTool } from '../compile-tool-schema.js';
import {
  LLMProviderError,
  type ProviderName,
  type Redact,
  redactKey,
  toProviderError,
} from '../provider-error.js';
import { defaultMaxTools, selectToolsLogged } from '../select-tools.js';
import { visionByDefault } from '../vision.js';
import { fromOpenAIResponse } from './convert-from-openai-response.js';
import { toOpenAIRequest } from './convert-to-openai-request.js';
import { collectOpenAIStream } from './openai-stream.js';

/** Options shared by the OpenAI and OpenAI-compatible providers. */
export interface OpenAIProviderOptions {
  model: string;
  apiKey?: string;
  baseURL?: string;
  /** Per-request timeout in ms (SDK default 10 minutes). */
  timeout?: number;
  /** SDK retries on 408/409/429/5xx and connection errors (default 2). */
  maxRetries?: number;
  /** Default output token cap. */
  maxTokens?: number;
  /** Replaces the global fetch (tests, proxies). */
  fetch?: typeof fetch;
  /** Most tools sent in one request (default 128, what OpenAI accepts); the most relevant are kept. */
  maxTools?: number;
  /** Removes secrets from vendor error text: pass host-core's `redactor.redact` (default: this apiKey only). */
  redact?: Redact;
  logger?: Logger;
  /** Whether the model reads images (tools' images are then sent); default: by the model's name. */
  vision?: boolean;
  /**
   * The embeddings model `embed` uses: OpenAI's default is `text-embedding-3-small`; the compatible
   * provider has none unless given. `false`: no `embed` at all.
   */
  embeddingModel?: string | false;
}

/** OpenAI's embeddings model when none is configured. */
export const defaultEmbeddingModel = 'text-embedding-3-small';

/**
 * Inputs per embeddings request: OpenAI takes at most 2048 (its API reference); Gemini's endpoint at
 * most 100, so the compatible provider, which may be Gemini, sends no more.
 */
const embeddingBatch = { openai: 2048, compatible: 100 } as const;
/**
 * Characters per embeddings request: OpenAI caps a request at 300 000 tokens summed over its inputs, and
 * a token is at least about 1.5 characters even in Japanese.
 */
const embeddingBatchChars = 200_000;

/** Groups `texts` into requests within `maxInputs` inputs and `maxChars` characters each. */
export function embeddingBatches(
  texts: string[],
  maxInputs: number,
  maxChars = embeddingBatchChars,
): string[][] {
  const batches: string[][] = [];
  let current: string[] = [];
  let chars = 0;
  for (const text of texts) {
    if (current.length > 0 && (current.length >= maxInputs || chars + text.length > maxChars)) {
      batches.push(current);
      current = [];
      chars = 0;
    }
    current.push(text);
    chars += text.length;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Google's OpenAI-compatible endpoint answers an error as a JSON array (`[{ "error": { … } }]`), which the
 * SDK reads as no body at all ("400 status code (no body)"): such a body is handed on as its one object,
 * so the vendor's own message reaches the error. Every other response passes untouched.
 */
function readableErrors(fetcher: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await fetcher(input, init);
    if (response.ok || !(response.headers.get('content-type') ?? '').includes('json')) return response;
    const text = await response.text();
    let body = text;
    try {
      const parsed = JSON.parse(text) as unknown;
      if (Array.isArray(parsed) && parsed.length === 1 && parsed[0] && typeof parsed[0] === 'object')
        body = JSON.stringify(parsed[0]);
    } catch {
      // not JSON after all: handed on as it came
    }
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    headers.delete('content-encoding');
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  };
}

/** OpenAI Chat Completions with function calling, on the official `openai` SDK. */
export class OpenAIProvider implements LLMProvider {
  readonly name: ProviderName = 'openai';
  readonly supportsImages: boolean;
  protected readonly client: OpenAI;
  protected readonly options: OpenAIProviderOptions;
  protected readonly logger: Logger;
  /** Repair local servers' quirks when mapping responses. */
  protected readonly lenient: boolean = false;
  private warn: SchemaWarning | undefined;
  /** Inputs one embeddings request carries. */
  protected readonly embeddingBatch: number = embeddingBatch.openai;
  readonly embeddingModel?: string;
  readonly embed?: (texts: string[], options?: { signal?: AbortSignal }) => Promise<number[][]>;

  constructor(options: OpenAIProviderOptions) {
    this.options = options;
    const embeddingModel =
      options.embeddingModel === undefined ? defaultEmbeddingModel : options.embeddingModel || undefined;
    if (embeddingModel) {
      this.embeddingModel = embeddingModel;
      this.embed = (texts, embedOptions) => this.embedWith(embeddingModel, texts, embedOptions?.signal);
    }
    this.supportsImages = options.vision ?? visionByDefault(options.model);
    this.logger = options.logger ?? silent;
    this.client = new OpenAI({
      apiKey: options.apiKey ?? '',
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
      ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
      ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
      fetch: readableErrors(options.fetch ?? globalThis.fetch),
      logLevel: 'off',
    });
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
      this.logger,
    );
    return this.send(messages, this.compile(chosen), options);
  }

  private async embedWith(model: string, texts: string[], signal?: AbortSignal): Promise<number[][]> {
    const empty = texts.findIndex((text) => text.trim() === '');
    if (empty >= 0)
      throw new LLMProviderError({
        provider: this.name,
        message: `cannot embed text ${empty}: it is empty, and the embeddings endpoint rejects empty input`,
        userMessage: 'The AI service could not process this request.',
        code: 'BAD_REQUEST',
        retryable: false,
      });
    const vectors: number[][] = [];
    for (const batch of embeddingBatches(texts, this.embeddingBatch)) {
      try {
        // `float` said outright: the SDK would ask for base64, which some compatible servers (Ollama)
        // ignore, and then decode their float list into a vector a quarter as long.
        const response = await this.client.embeddings.create(
          { model, input: batch, encoding_format: 'float' },
          signal ? { signal } : {},
        );
        const ordered = [...response.data].sort((left, right) => left.index - right.index);
        if (ordered.length !== batch.length)
          throw new LLMProviderError({
            provider: this.name,
            message: `the embeddings endpoint returned ${ordered.length} vectors for ${batch.length} texts (model ${model})`,
            userMessage: 'The AI service could not process this request.',
            code: 'BAD_REQUEST',
            retryable: false,
          });
        vectors.push(...ordered.map((entry) => entry.embedding));
      } catch (error) {
        throw toProviderError(
          this.name,
          error,
          this.options.redact ?? redactKey(this.options.apiKey),
          this.client.baseURL,
        );
      }
    }
    return vectors;
  }

  protected compile(tools: ToolDefinition[]): ToolDefinition[] {
    // Made on first use: a subclass's `name` is not set yet while this constructor runs.
    this.warn ??= warnOncePerTool(this.name, this.logger);
    return compileTools(tools, {}, this.warn);
  }

  protected async send(
    messages: Message[],
    tools: ToolDefinition[],
    options: CompletionOptions,
  ): Promise<LLMResponse> {
    const stream = options.onTextDelta !== undefined;
    const request = toOpenAIRequest(messages, tools, {
      model: this.options.model,
      maxTokens: options.maxTokens ?? this.options.maxTokens,
      temperature: options.temperature,
      stream,
      legacyMaxTokens: this.lenient,
      streamUsage: !this.lenient,
      toolChoice: options.toolChoice,
    });
    try {
      if (request.stream) {
        const chunks = await this.client.chat.completions.create(request, { signal: options.signal });
        return await collectOpenAIStream(chunks, { lenient: this.lenient, onTextDelta: options.onTextDelta });
      }
      const completion = await this.client.chat.completions.create(request, { signal: options.signal });
      return fromOpenAIResponse(completion, { lenient: this.lenient });
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

/**
 * Any OpenAI-compatible server (LM Studio, Ollama, vLLM, llama.cpp, Gemini's compatible endpoint),
 * mapped leniently: generated or de-duplicated tool-call ids, object arguments, unparseable
 * arguments as a correctable error, `<think>` stripped, `<tool_call>` text parsed as a call. A model
 * without tool support is detected from the server's 400 and then asked without tools.
 */
export class OpenAICompatibleProvider extends OpenAIProvider {
  override readonly name: ProviderName;
  protected override readonly lenient = true;
  protected override readonly embeddingBatch: number = embeddingBatch.compatible;
  private toolsUnsupported: boolean;

  /** `name` labels logs and errors (`gemini` for Gemini's OpenAI-compatible endpoint). */
  constructor(
    options: OpenAIProviderOptions & { supportsTools?: boolean; name?: 'gemini' | 'openai-compatible' },
  ) {
    super({
      ...options,
      baseURL: options.baseURL ?? 'http://localhost:1234/v1',
      apiKey: options.apiKey || 'not-needed',
      // A compatible server's embeddings model has no common name: only the one configured is used.
      embeddingModel: options.embeddingModel ?? false,
    });
    this.toolsUnsupported = options.supportsTools === false;
    this.name = options.name ?? 'openai-compatible';
  }

  override async completeWithTools(
    messages: Message[],
    tools: ToolDefinition[],
    options: CompletionOptions = {},
  ): Promise<LLMResponse> {
    if (this.toolsUnsupported || tools.length === 0) return this.complete(messages, options);
    try {
      return await this.send(messages, this.compile(tools), options);
    } catch (error) {
      if (
        error instanceof LLMProviderError &&
        error.status === 400 &&
        /does not support tools|tools? (are|is) not supported|tool use is not supported/i.test(error.message)
      ) {
        this.toolsUnsupported = true;
        this.logger.warn(
          { provider: this.name, model: this.options.model },
          'model does not support tools; answering without them from now on',
        );
        return this.complete(messages, options);
      }
      throw error;
    }
  }
}
