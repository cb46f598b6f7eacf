import type {
  ImageContent,
  LLMProvider,
  Logger,
  Message,
  ToolFile,
  ToolHints,
} from '@ai-assistant/chat-types';
import type { SemanticRanker, ToolChoiceSettings } from '../choice/tool-choice.js';
import type {
  AppToolResult,
  ElicitationAnswer,
  ElicitationRequest,
  RequestTokens,
  ToolHost,
} from '../tool-host.js';
import type { SamplingLimits } from './server-questions.js';

/**
 * Budgets and rates, as the loop consults them (the assistant's `UsageGate` is one): whether a person's
 * turn may start, and afterwards what it used (a failed or cancelled turn's too).
 */
export interface UsagePolicy {
  /** Whether the person may ask now, else the words to tell them; `reservation` goes back to `record`. */
  admit(person: {
    workspace: string;
    user: string;
  }): Promise<{ ok: true; reservation?: string } | { ok: false; message: string }>;
  record(
    person: { workspace: string; user: string },
    used: { questions?: number; inputTokens?: number; outputTokens?: number; toolCalls?: number },
    reservation?: string,
  ): Promise<void>;
}

/** Progress of one turn, reported as it happens. */
export type ChatEvent =
  | {
      type: 'tool_start';
      callId: string;
      name: string;
      server?: string;
      tool?: string;
      /** The server's `status_message`, to show while the tool runs. */
      statusMessage?: string;
      arguments: Record<string, unknown>;
      /** Set for a server's `auto_context_tool`, run with the message before the model is asked. */
      autoContext?: boolean;
    }
  | {
      type: 'tool_end';
      callId: string;
      name: string;
      server?: string;
      tool?: string;
      ok: boolean;
      durationMs: number;
    }
  /** The server reported progress on a running tool (`notifications/progress`), message redacted. */
  | {
      type: 'tool_progress';
      callId: string;
      name: string;
      server?: string;
      progress: number;
      total?: number;
      message?: string;
    }
  /** A tool returned images (size-capped): an app may show them, e.g. upload them to the thread. */
  | {
      type: 'tool_images';
      callId: string;
      name: string;
      server?: string;
      tool?: string;
      images: ImageContent[];
    }
  /** A tool returned files (embedded resources' blobs, size-capped): an app may post them. */
  | {
      type: 'tool_files';
      callId: string;
      name: string;
      server?: string;
      tool?: string;
      files: ToolFile[];
    }
  /**
   * A tool running as an MCP task was still working when the answer had to end: the task goes on on the
   * server (not cancelled). An app may follow it (`CallToolOptions.followTask` with the same tool name)
   * and show its result when it completes.
   */
  | {
      type: 'task_detached';
      callId: string;
      name: string;
      server?: string;
      tool?: string;
      taskId: string;
    }
  /**
   * A tool with an MCP Apps view (`_meta.ui.resourceUri`) returned a result, not an error: an app may
   * offer the view. `result` is the result as the server sent it (redacted; absent when too large),
   * `summary` the text the model read; `arguments` as shown (redacted).
   */
  | {
      type: 'tool_view';
      callId: string;
      name: string;
      server: string;
      tool: string;
      resourceUri: string;
      arguments: Record<string, unknown>;
      summary: string;
      result?: AppToolResult;
    }
  /** A server asked the person for input in the middle of a tool call. */
  | { type: 'elicitation'; server: string; mode: 'form' | 'url' }
  /** A server's completion ran on the turn's model (after the person approved it). */
  | { type: 'sampling'; server: string; model: string }
  | { type: 'text_delta'; text: string }
  /**
   * A tool needed the person's own credential for `server`: they have not connected one, or (`refused`)
   * the server refused the one they connected (expired, revoked).
   */
  | {
      type: 'credential_needed';
      server: string;
      name: string;
      refused?: boolean;
      /** The server asked for more access (403 `insufficient_scope`): this scope, granted by connecting again. */
      scope?: string;
    };

/** One tool call of a turn, for logs and progress display. */
export interface TraceEntry {
  name: string;
  server?: string;
  tool?: string;
  arguments: Record<string, unknown>;
  durationMs: number;
  ok: boolean;
  /** The error text the model saw, when the call failed. */
  error?: string;
}

/** Input of {@link ChatService.respond}. */
export interface RespondInput {
  /**
   * Leave tools that run as MCP tasks running when the answer wraps up (a `task_detached` event names
   * each): set it when the app follows such tasks and shows their results later. Otherwise a task still
   * working at the deadline is cancelled with the turn.
   */
  detachTasks?: boolean;
  /** Earlier user and assistant messages of the conversation (no tool steps). */
  history: Message[];
  /** Tools called earlier in the conversation (the last turn's `usedTools`): they stay offered. */
  usedTools?: readonly string[];
  userMessage: string;
  /** Images the person attached to the question (sent to a model that reads images, else named). */
  userImages?: ImageContent[];
  /**
   * What the person attached, read only once the turn is admitted (budgets and the rate first): its
   * text follows `userMessage`, its images join `userImages`. A refused turn never reads it.
   */
  attached?: () => Promise<{ text?: string; images?: ImageContent[] }>;
  /**
   * What `auto_context_tool`s look up (default: `userMessage`). A turn filled from a server's prompt
   * passes the prompt's arguments: its text already carries what the prompt wants, and is no query.
   */
  autoContextQuery?: string;
  /** Cancels the answer (the person gave up, the app is stopping); the service's deadline applies too. */
  signal?: AbortSignal;
  onEvent?: (event: ChatEvent) => void;
  /** Stream the answer: the provider streams and `onEvent` receives `text_delta` events. */
  streamText?: boolean;
  /** This user's secrets for `${name}` header templates; passed to tool calls, never stored or logged. */
  tokens?: RequestTokens;
  /**
   * The tools of this turn, when they depend on who asks (`McpClientManager.forPerson`): the
   * workspace's enabled servers and the person's own credentials. Default: the service's `tools`.
   */
  tools?: ToolHost;
  /**
   * Asks the person whether a tool that needs approval may run. Without it, such calls are refused:
   * nothing runs unapproved by accident. Other calls of the round run while it waits.
   */
  approve?: (request: ApprovalRequest) => Promise<ApprovalDecision>;
  /**
   * Asks the person for the input a server requested in the middle of a tool call (a form from its
   * schema, or a page to open). Without it, such requests are declined.
   */
  elicit?: (request: ElicitationRequest) => Promise<ElicitationAnswer>;
  /** The asker's workspace: the turn's spans and metrics carry it (nothing else of them is recorded). */
  workspace?: string;
  /** Who asks, for budgets and the audit (default: the view's person, `tools.asker()`). */
  person?: { workspace: string; user: string };
}

/** What a person is asked to approve; written by the host, arguments redacted. */
export interface ApprovalRequest {
  /** The model-facing tool name. */
  name: string;
  server: string;
  /** The tool's own name on its server. */
  tool: string;
  arguments: Record<string, unknown>;
  hints: ToolHints;
  /**
   * Some argument holds a secret, shown as [REDACTED]: approving sends the real value. Say so, so a
   * person never approves a value they were not told about.
   */
  hidesSecrets?: boolean;
  /** A server asks the turn's model for a completion (`sampling/createMessage`), not a tool call. */
  sampling?: boolean;
}

/** A person's answer to an {@link ApprovalRequest}. */
export type ApprovalDecision =
  | { outcome: 'approved'; by?: string }
  | { outcome: 'denied'; reason?: string; by?: string }
  | { outcome: 'expired' };

/** Outcome of one turn. */
export interface RespondResult {
  /** The final answer. */
  text: string;
  trace: TraceEntry[];
  /** Model calls made with tools offered. */
  rounds: number;
  limitReached: boolean;
  /** History to keep: the input history plus this user message and the final answer, nothing else. */
  history: Message[];
  /**
   * Tools the model called in this turn and those passed in `usedTools`: give them to the thread's next
   * turn, which keeps offering them while the catalog is chosen from.
   */
  usedTools: string[];
  /** Set when the budgets or the rate refused the turn: `text` says why, and the model was not called. */
  refused?: 'usage';
}

/** Options of {@link ChatService}. */
export interface ChatServiceOptions {
  provider: LLMProvider;
  /** Where tools come from; without it (MCP off) every turn is one plain model call. */
  tools?: ToolHost;
  /** Base system prompt; each connected server's `system_instruction` is appended. */
  systemPrompt?: string;
  /** Most model calls with tools per turn (default 10, `TOOL_LOOP_MAX_ITERATIONS`). */
  maxIterations?: number;
  /** Overrides every server's per-call timeout (`TOOL_CALL_TIMEOUT_MS`). */
  toolTimeoutMs?: number;
  /** Calls run in one round; the rest get an error result (default 16, `MAX_TOOL_CALLS_PER_ROUND`). */
  maxToolCallsPerRound?: number;
  /**
   * Longest an answer may take (default 120 000, `ANSWER_TIMEOUT_MS`), not counting the time a person
   * is asked (approvals, a server's questions). When only a quarter of it (at most 30 s) is left, the
   * loop starts no new round of tools and asks the model for its answer from what it has, with tool
   * choice "none" (as at the tool-call limit); at the deadline the turn rejects with `CancelledError`.
   */
  answerTimeoutMs?: number;
  /** What servers may ask of the model per turn (default 3 completions of at most 1 000 tokens). */
  sampling?: Partial<SamplingLimits>;
  logger?: Logger;
  /**
   * Budgets and the per-person rate: a turn they refuse gets their words as its answer, and the model
   * is not called; each turn's tokens, tool calls and question are counted.
   */
  usage?: UsagePolicy;
  /** Called once per tool call of a turn with who, what (redacted, cut), the approval and the outcome. */
  audit?: (entry: ToolAuditEntry) => void | Promise<void>;
  /** The audit's clock (default the real one). */
  now?: () => Date;
  /**
   * How many tools a request carries: a larger catalog is chosen from per question (the tools that fit,
   * those used in the thread, and a search tool for the rest). `false` offers every tool.
   */
  toolChoice?: Partial<ToolChoiceSettings> | false;
  /** Ranks a large catalog by meaning as well (an embeddings endpoint); without it, by words alone. */
  toolRanker?: SemanticRanker;
}

/** One tool call, for an audit trail: nothing secret (the arguments are as shown to people). */
export interface ToolAuditEntry {
  kind: 'tool_call';
  at: Date;
  workspace: string;
  person: string;
  server?: string;
  tool: string;
  /** The arguments, redacted, as JSON cut to 2 000 characters. */
  arguments: string;
  /** Who approved and when; absent when the tool ran without asking. */
  approval?: { by: string; at: Date };
  outcome: 'ok' | 'error' | 'denied';
  durationMs: number;
}
