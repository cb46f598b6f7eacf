// The provider-neutral types: the seam where MCP tools meet the model. Every provider adapter
// translates these to and from one vendor's API; nothing else crosses between the packages.

/** A JSON Schema object (as MCP tools declare their input). */
export type JsonSchema = Record<string, unknown>;

/** A tool the model may call. */
export interface ToolDefinition {
  /** Provider-safe name (`^[a-zA-Z0-9_-]{1,64}$`), e.g. `mcp__weather__get_weather`. */
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  inputSchema: JsonSchema;
  /** What the tool does to the world, as its server says (MCP `annotations`, defaults filled in). */
  hints?: ToolHints;
  /** Whether a person must approve each call (the server's `approval` policy applied to the hints). */
  needsApproval?: boolean;
}

/** MCP tool annotations with the spec's defaults applied. */
export interface ToolHints {
  /** Changes nothing (default false). */
  readOnly: boolean;
  /** May destroy or overwrite (default true; meaningful when not read-only). */
  destructive: boolean;
  /** Calling twice with the same arguments does no more than once (default false). */
  idempotent: boolean;
  /** Reaches beyond a closed world: the internet, other people (default true). */
  openWorld: boolean;
}

/** A call the model asked for. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /**
   * Set by a provider when the model's arguments could not be parsed (not JSON, not an object);
   * the chat loop answers the call with this as an error the model can correct.
   */
  argumentsError?: string;
  /**
   * What the vendor attached to the call that must go back with it, unchanged, when the conversation
   * continues (Gemini's `extra_content` with its thought signature). Opaque to everyone but its provider.
   */
  vendorData?: Record<string, unknown>;
}

/** The outcome of one tool call, as the model will read it. */
export interface ToolResult {
  toolCallId: string;
  content: string;
  isError: boolean;
}

/** An image a tool returned or a person attached, base64, for a model that reads images. */
export interface ImageContent {
  /** `image/png`, `image/jpeg`, `image/gif` or `image/webp`. */
  mimeType: string;
  data: string;
}

/** A file a tool returned (an embedded resource's blob), base64, for an app to pass on (e.g. to a thread). */
export interface ToolFile {
  /** From the resource's URI: letters, digits, dot, dash and underscore only. */
  name: string;
  mimeType: string;
  data: string;
}

/** One message of a conversation. */
export interface Message {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /**
   * For a provider whose model reads images: on `tool` messages the images the tool returned, on
   * `user` messages the images the person attached.
   */
  images?: ImageContent[];
  /** On `tool` messages: the call this answers. */
  toolCallId?: string;
  /** On `tool` messages: whether the call failed. */
  isError?: boolean;
  /** On `assistant` messages: the calls the model made. */
  toolCalls?: ToolCall[];
}

/** Token counts of one model call, when the provider reports them. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

/** Why the model stopped. */
export type StopReason = 'end' | 'tool_calls' | 'max_tokens' | 'content_filter' | 'other';

/** One model response. */
export interface LLMResponse {
  content: string;
  model: string;
  usage?: Usage;
  toolCalls: ToolCall[];
  stopReason: StopReason;
}

/** Per-call options of a provider. */
export interface CompletionOptions {
  signal?: AbortSignal;
  /** When given, the provider streams and reports text as it arrives. */
  onTextDelta?: (text: string) => void;
  maxTokens?: number;
  temperature?: number;
  /**
   * `none`: the tools are sent (a history with tool calls needs them) but the model may not call one.
   * Default `auto`.
   */
  toolChoice?: 'auto' | 'none';
}

/**
 * A language model behind one vendor API. `completeWithTools` offers tools; a provider without tool
 * support may implement it by calling `complete` and ignoring them.
 */
export interface LLMProvider {
  /** Whether the model reads images (tool results' images are then sent to it, not only described). */
  readonly supportsImages?: boolean;
  /** Short name for logs (`openai`, `anthropic`, …). */
  readonly name: string;
  complete(messages: Message[], options?: CompletionOptions): Promise<LLMResponse>;
  completeWithTools(
    messages: Message[],
    tools: ToolDefinition[],
    options?: CompletionOptions,
  ): Promise<LLMResponse>;
  /**
   * The model `embed` uses (it names cached vectors: another model's vectors are never compared).
   * Set exactly when `embed` is.
   */
  readonly embeddingModel?: string;
  /**
   * One vector per text, in order, from the vendor's embeddings endpoint; absent where the deployment
   * has none. Batches within the endpoint's limits itself; rejects on any failure.
   */
  embed?(texts: string[], options?: { signal?: AbortSignal }): Promise<number[][]>;
}
