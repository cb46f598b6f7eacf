import type { JsonSchema, ToolDefinition } from './types.js';

/**
 * The seam where the chat loop meets the tools: what `ChatService` needs, and nothing more.
 * `McpClientManager` is one; a test or another host can be another.
 */
export interface ToolHost {
  /** Every tool the model may call, with provider-safe names. */
  listTools(): ToolDefinition[];
  /** The server and original tool name behind a model-facing name (and the server's status message). */
  resolveTool(name: string): ResolvedTool | undefined;
  /** Runs a tool; failures throw a `ToolCallError` or a `CancelledError` (see errors.ts). */
  callTool(name: string, args: Record<string, unknown>, options?: CallToolOptions): Promise<ToolCallOutcome>;
  /** The configured `system_instruction` of every connected server. */
  systemInstructions(): string[];
  /** The `response_instruction` of the server behind a model-facing tool name. */
  responseInstructionFor(toolName: string): string | undefined;
  /** Tools to call with the person's message before the model is asked. */
  autoContextTools(): AutoContextTool[];
  /** Servers whose tools are listed but cannot run now (restarting, or down). */
  unavailableServers(): Array<{ server: string; restarting: boolean }>;
  /** A copy of a value (text, arguments, a log record) with every known secret replaced. */
  redact<T>(value: T, extra?: Iterable<string>): T;
  /** How the asking person connects their own credential for a server (e.g. "/assistant connect github"). */
  credentialHint?(server: string): string;
}

/** Per-request secrets for `${name}` header templates, by name; never logged, never returned. */
export type RequestTokens = Readonly<Record<string, string>>;

/** Per-call options of `ToolHost.callTool`. */
export interface CallToolOptions {
  signal?: AbortSignal;
  /** Overrides the server's `timeout_ms`. */
  timeoutMs?: number;
  /** Per-request secrets for `${name}` header templates; never logged, never returned. */
  tokens?: RequestTokens;
  /**
   * Called with each progress notification the server sends for this request. Every MCP request
   * carries a progress token, and each notification restarts its timeout, up to the server's
   * `max_timeout_ms` in all.
   */
  onProgress?: (update: ToolProgress) => void;
}

/** One progress notification of a running request (`notifications/progress`). */
export interface ToolProgress {
  progress: number;
  /** The whole amount, when the server knows it. */
  total?: number;
  message?: string;
}

/** A tool result as the model will read it. */
export interface ToolCallOutcome {
  text: string;
  isError: boolean;
  server: string;
  tool: string;
}

/** A tool to call with the user's message before the first model call. */
export interface AutoContextTool {
  server: string;
  /** Provider-safe name, as listed by `ToolHost.listTools`. */
  name: string;
  inputSchema: JsonSchema;
}

/** The server and original tool behind a model-facing name, and the server's `status_message`. */
export interface ResolvedTool {
  server: string;
  tool: string;
  statusMessage?: string;
}
