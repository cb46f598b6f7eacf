import type { Logger } from '@ai-assistant/chat-types';
import type { ApprovalPolicy, ServerConfig } from '../config/mcp-config.js';
import type { OAuthOptions } from '../oauth/oauth-service.js';
import type { Redactor } from '../redaction.js';
import type { PersonalPoolOptions } from './personal-pool.js';
import type { RestartPolicy } from './supervisor.js';
import type { ToolCatalogCache } from './tool-catalog-cache.js';

export type {
  AutoContextTool,
  CallToolOptions,
  RequestTokens,
  ResolvedTool,
  ToolCallOutcome,
} from '../tool-host.js';

/** Options of `McpClientManager`. */
export interface McpClientManagerOptions {
  logger?: Logger;
  /**
   * The process's one redactor (the app's logs, the providers' errors and MCP share it, so a secret
   * one of them learns is hidden by all). Default: a new one over the environment's secrets.
   */
  redactor?: Redactor;
  /**
   * Time a server has to start and answer `initialize` and `tools/list` (default 10 000 ms); an entry's
   * `startup_timeout_ms` overrides it. A start that runs out of time is tried again at once with twice
   * the limit, up to six times it (see `startupLimits`), before the supervisor's backoff takes over.
   */
  connectTimeoutMs?: number;
  /**
   * How many servers start at once (default twice the machine's cores, at least 2: a start is mostly
   * one process loading its code, so more at once only makes each slower). The rest wait their turn;
   * a call to a waiting server moves it to the front.
   */
  startConcurrency?: number;
  /**
   * Where each shared server's tool list is kept between starts (the store's `toolCatalogs`): a restart,
   * or another replica, lists every tool at once while the servers connect behind it.
   */
  toolCatalogCache?: ToolCatalogCache;
  /** Hears how each shared server starts and stops (for logs, metrics and tests). */
  onServerEvent?: (event: ServerEvent) => void;
  /** Largest tool result handed on, in characters (default 20 000). */
  resultBudget?: number;
  /** Name and version this host announces to servers. */
  clientInfo?: { name: string; version: string };
  /** Where `${NAME}` in header templates falls back to (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** Clock of the builtin tools (default: the real clock). */
  now?: () => Date;
  /** How failed servers are reconnected (see `RestartPolicy`; tests shorten the waits). */
  restartPolicy?: Partial<RestartPolicy>;
  /** Calls one server runs at once; more wait their turn (default 4). */
  maxConcurrentPerServer?: number;
  /** Per-person connections (`connection: "per_user"`): idle timeout (default 10 min) and cap (default 100). */
  personalPool?: PersonalPoolOptions;
  /**
   * MCP authorization for `oauth` servers: where grants and flows are kept, and the exact redirect URI
   * (the app's callback). Without it, OAuth servers cannot be connected.
   */
  oauth?: Omit<OAuthOptions, 'redactor' | 'logger' | 'now'>;
}

/**
 * A step in the life of a shared server's process or connection. `attempt` counts the attempts of one
 * start (1 = the first); `limitMs` is the time that attempt has to answer `initialize` and its lists.
 */
export type ServerEvent =
  | { type: 'starting'; server: string; attempt: number; limitMs: number }
  /** The attempt ran out of time; the next one starts at once with `nextLimitMs`. */
  | { type: 'start-timed-out'; server: string; attempt: number; limitMs: number; nextLimitMs: number }
  | { type: 'connected'; server: string; attempt: number; ms: number; tools: number }
  /** The start failed for good (its last attempt); the supervisor decides what comes next. */
  | { type: 'start-failed'; server: string; attempt: number; reason: string }
  /** Its tools are listed from the catalog cache, before (or without) it starts. */
  | { type: 'cached'; server: string; tools: number }
  /** Its tool list (new, or changed since) was saved in the catalog cache. */
  | { type: 'kept'; server: string; tools: number }
  /** A server started on first use was stopped: `idle` (no call for its idle time) or `learned` (its tools are known). */
  | { type: 'stopped'; server: string; why: 'idle' | 'learned' };

/**
 * Where a server stands. `per_user`: no shared connection, each person's opens on their first use.
 * `idle`: no connection open now; it opens on the next turn that uses it (a workspace's own server, or
 * an entry with `start: "on_first_use"`, whose tools are listed from the catalog cache meanwhile).
 */
export type ServerState =
  | 'connecting'
  | 'connected'
  | 'restarting'
  | 'failed'
  | 'disabled'
  | 'closed'
  | 'per_user'
  | 'idle';

/** One server's status, for logs, /healthz and `/servers`. */
export interface ServerStatus {
  name: string;
  transport: ServerConfig['transport'];
  state: ServerState;
  /** Why it failed or closed. */
  reason?: string;
  toolCount: number;
  /** The protocol revision it speaks while connected (`2025-11-25`, `2026-07-28`, …). */
  protocolVersion?: string;
  /** Which tools wait for a person's approval (`auto`, `writes`, `always`, or the names). */
  approval: ApprovalPolicy;
  /** Each person brings their own credential (`${token}` in its templates, or OAuth). */
  personalCredential: boolean;
  /** Each person connects it with OAuth (MCP authorization) rather than a pasted token. */
  oauth?: boolean;
  /** Whether a workspace has it before an admin acts. */
  enabledByDefault: boolean;
  /** Where a person creates the token it needs (`credential_help`). */
  credentialHelp?: string;
  /** What it is for: its `system_instruction`, when set. */
  description?: string;
}

/** A resource some server offers. */
export interface ResourceEntry {
  server: string;
  uri: string;
  name: string;
  description?: string;
  mimeType?: string;
}

/** A resource template some server offers. */
export interface ResourceTemplateEntry {
  server: string;
  uriTemplate: string;
  name: string;
  description?: string;
}

/** A prompt some server offers. */
export interface PromptEntry {
  server: string;
  name: string;
  /** Its human-readable title, when the server gives one. */
  title?: string;
  description?: string;
  arguments: Array<{ name: string; description?: string; required?: boolean }>;
}

/** A prompt filled in by its server, as plain messages. */
export interface FilledPrompt {
  description?: string;
  messages: Array<{ role: 'user' | 'assistant'; content: string }>;
}

/** Names of the host's own resource tools, offered when some server has resources. */
export const hostToolNames = {
  listResources: 'host__list_resources',
  readResource: 'host__read_resource',
} as const;
