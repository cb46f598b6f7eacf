import type { ImageContent, JsonSchema, ToolDefinition, ToolFile, ToolHints } from '@ai-assistant/chat-types';

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
  /**
   * Servers whose tools cannot run now (restarting, or down), and, in a person's view, their own
   * connections that failed, with why (`reason`, redacted).
   */
  unavailableServers(): Array<{ server: string; restarting: boolean; reason?: string }>;
  /** A copy of a value (text, arguments, a log record) with every known secret replaced. */
  redact<T>(value: T, extra?: Iterable<string>): T;
  /** How the asking person connects their own credential for a server (e.g. "/assistant connect github"). */
  credentialHint?(server: string): string;
  /**
   * Why a tool the model named is not offered, when the person can fix it: a per-person server they
   * have not connected (a `MISSING_CREDENTIALS` error, so the app offers Connect). Undefined: unknown.
   */
  unavailableTool?(name: string): Error | undefined;
  /** Whose view this is (a person's view of MCP), for budgets and the audit. */
  asker?(): { workspace: string; user: string };
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
   * Called with each progress notification the server sends for this request. With it the request
   * carries a progress token (as the SDK's `onprogress` does; the chat loop always passes one), and
   * each notification restarts its timeout, up to the server's `max_timeout_ms` in all. Without it
   * the server cannot report progress, and the timeout holds as it is.
   */
  onProgress?: (update: ToolProgress) => void;
  /**
   * Asks the person for input the server requested in the middle of this request
   * (`elicitation/create`). Without it, such requests are declined. The request's deadline pauses
   * while the person answers.
   */
  elicit?: (request: ElicitationRequest) => Promise<ElicitationAnswer>;
  /** Runs a completion the server asked of the host's model (`sampling/createMessage`); without it, refused. */
  sample?: (request: SamplingRequest) => Promise<SamplingAnswer>;
  /**
   * Who this request is for (one turn): a server's question in the middle of a request goes to its
   * requester only when no other requester's request runs on the same connection, else it is declined.
   */
  requester?: string;
  /**
   * When this fires while the call runs as a task (MCP tasks), the host stops waiting for it without
   * cancelling it: the outcome's `task` names it, for `followTask` to pick up later (the chat loop passes
   * its wrap-up, so a task outlives the turn).
   */
  detach?: AbortSignal;
  /**
   * Follows a task an earlier call of this tool left running (`outcome.task.taskId`) instead of calling
   * the tool: waits up to `waitMs` (default 10 s) for it to end; the outcome is then its result, or says
   * it still works (`task.status` `working`). With `cancel`, cancels it on the server.
   */
  followTask?: { taskId: string; cancel?: boolean; waitMs?: number };
  /**
   * Keep the result as the server sent it (`ToolCallOutcome.app`), for an MCP Apps view: the host's
   * page hands it to the view. Results of tools that declare a view (`_meta.ui.resourceUri`) always
   * keep it.
   */
  appResult?: boolean;
}

/** A server asks the person for input: a form built from a flat schema, or a page to open. */
export interface ElicitationRequest {
  server: string;
  mode: 'form' | 'url';
  /** The server's words to the person. */
  message: string;
  /** Form mode: an object schema of primitive properties (strings with formats, numbers, booleans, enums). */
  requestedSchema?: JsonSchema;
  /** URL mode: the page to open (the answer comes from that page, not from the form). */
  url?: string;
  /** URL mode: the server's id for this elicitation. */
  elicitationId?: string;
}

/** The person's answer: accept (with the form's values), decline, or cancel (dismissed). */
export type ElicitationAnswer =
  | { action: 'accept'; content?: Record<string, string | number | boolean | string[]> }
  | { action: 'decline' }
  | { action: 'cancel' };

/** A server asks the host's model for a completion. */
export interface SamplingRequest {
  server: string;
  /** The conversation the server sends, as text (other content described). */
  messages: Array<{ role: 'user' | 'assistant'; content: string }>;
  systemPrompt?: string;
  maxTokens: number;
}

/** The model's completion for a server. */
export interface SamplingAnswer {
  text: string;
  model: string;
  stopReason?: 'endTurn' | 'maxTokens' | 'stopSequence';
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
  /** Images the tool returned (also described in `text`), size-capped: for vision models and the thread. */
  images?: ImageContent[];
  /** Files the tool returned (embedded resources' blobs), size-capped: for the thread. */
  files?: ToolFile[];
  /**
   * The call's task still runs on the server (it was detached, or a follow found it working), or a
   * follow ended it (`cancelled`, `failed`): its id and status.
   */
  task?: { taskId: string; status: string };
  /**
   * For an MCP Apps view: the view the tool declares (`_meta.ui.resourceUri`), and its result as the
   * server sent it, redacted, when it is at most {@link maxAppResultBytes}. Never for a model.
   */
  app?: { resourceUri?: string; result?: AppToolResult };
}

/** A tool result as an MCP Apps view reads it (`ui/notifications/tool-result`, `tools/call`). */
export interface AppToolResult {
  content: unknown[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** The largest tool result kept for an App's view, serialized (larger ones are called again by the page). */
export const maxAppResultBytes = 512 * 1024;

/**
 * A tool of a server as an MCP Apps view may call it: the tools its `_meta.ui.visibility` lists "app"
 * for (the default), app-only ones included, with whether a person must approve each call.
 */
export interface AppTool {
  server: string;
  tool: string;
  description: string;
  inputSchema: JsonSchema;
  hints: ToolHints;
  needsApproval: boolean;
  /** The view it declares (`_meta.ui.resourceUri`), if any. */
  resourceUri?: string;
}

/** A resource as an MCP Apps view (or the host's page for it) reads it: the server's contents, redacted. */
export interface AppResource {
  contents: Array<{
    uri: string;
    mimeType?: string;
    text?: string;
    blob?: string;
    _meta?: Record<string, unknown>;
  }>;
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
