import type { JsonSchema } from '@ai-assistant/chat-types';
import type { AddressAllowlist } from '../net/address-guard.js';
import type { CompiledOpenApi } from '../tools/openapi-tools.js';

/** The kinds of server the host can use. */
export type TransportKind = 'stdio' | 'http' | 'sse' | 'builtin' | 'openapi';

/** A server's `approval` setting. */
export type ApprovalPolicy = 'auto' | 'writes' | 'always' | string[];

/** The fields every kind of server has. */
export interface CommonServerConfig {
  name: string;
  allowedTools?: string[];
  timeoutMs: number;
  /**
   * The longest one call may run while the server's progress notifications keep resetting `timeoutMs`
   * (`max_timeout_ms`; default 10 minutes, never less than `timeoutMs`).
   */
  maxTimeoutMs?: number;
  /**
   * How long the server has to answer `initialize` and its first lists when it starts (`startup_timeout_ms`;
   * default the manager's `connectTimeoutMs`, 10 s): a server `npx` downloads on its first start needs more.
   */
  startupTimeoutMs?: number;
  /** The folders the server may work in (`roots/list`), as file:// URIs; default none. */
  roots?: Array<{ uri: string; name: string }>;
  /**
   * The protocol revision to speak (`protocol_version`): absent, each connection asks with
   * `server/discover` and falls back to `initialize`; `2025-11-25` opens with `initialize` at once;
   * `2026-07-28` speaks that revision or fails.
   */
  protocolVersion?: '2025-11-25' | '2026-07-28';
  /** The level asked of the server with `logging/setLevel` at connect (its log then reaches the host's). */
  logLevel?: 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';
  systemInstruction?: string;
  responseInstruction?: string;
  autoContextTool?: string;
  /** Largest HTTP response body read from this server (http, sse, openapi). */
  maxResponseBytes?: number;
  /** Shown to people while one of this server's tools runs (e.g. "🌤️ 天気を調べています…"). */
  statusMessage?: string;
  /**
   * What happens when the server fails (at start-up or later): `on-failure` (the default when absent)
   * reconnects with exponential backoff; `never` leaves it down until the next start.
   */
  restart?: 'on-failure' | 'never';
  /**
   * Which tools a person must approve before they run: `auto` (none), `writes` (every tool not marked
   * `readOnlyHint: true`), `always` (all), or a list of tool names. Default: `writes`, `auto` for builtin.
   */
  approval?: ApprovalPolicy;
  disabled: boolean;
  /**
   * `shared` (one connection for everyone) or `per_user` (one connection per person, opened with their
   * credential, for servers that check it at `initialize` or read it from their environment). Default shared.
   */
  connection?: 'shared' | 'per_user';
  /**
   * Whether each person brings their own credential: `${token}` appears in the server's headers,
   * security values or env. `${token}` in server X's templates is the asking person's secret for X.
   */
  personalCredential?: boolean;
  /** Where a person creates the token this server needs (shown when they connect). */
  credentialHelp?: string;
  /** Whether a workspace has this server before an admin enables or disables it (default true). */
  enabledByDefault?: boolean;
  /** Whether the `instructions` the server returns at initialize join the system prompt (default true). */
  serverInstructions?: boolean;
  /**
   * Set on a per-person connection's config (its `${token}` filled): that person's secret. Values
   * holding it are hidden in logs and that person's output, never pinned for everyone.
   */
  personalSecret?: string;
  /**
   * Values filled from the environment (`${NAME}`) into this entry's command, args, env and url: the
   * host redacts them wherever they appear (a server's stderr, a failure reason, `/healthz`, logs).
   */
  substituted?: string[];
  /**
   * Set on servers a workspace added (never the operator's): every request goes to public addresses
   * only, checked when each connection is dialled, unless this operator's allowlist names them.
   */
  publicAddressesOnly?: AddressAllowlist;
  /** Set on servers a workspace added: that workspace (no other workspace's view has them). */
  workspace?: string;
}

/** A server started as a child process and spoken to over stdin/stdout. */
export interface StdioServerConfig extends CommonServerConfig {
  transport: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /**
   * `at_startup` (the default: started with the host) or `on_first_use`: not started until a call needs
   * it, and stopped again after `idleStopMs` with no call; its tools are listed from the catalog cache
   * (with no cache yet, it is started once at start-up to learn them, then stopped).
   */
  start?: 'at_startup' | 'on_first_use';
  /** `on_first_use`: how long the process lives with no call (`idle_stop_ms`; default 10 minutes). */
  idleStopMs?: number;
}

/**
 * A remote server over Streamable HTTP or legacy SSE. `headers` values may hold `${name}`
 * placeholders, filled per request from the caller's tokens, then the environment.
 */
export interface RemoteServerConfig extends CommonServerConfig {
  transport: 'http' | 'sse';
  url: string;
  headers: Record<string, string>;
  /** MCP authorization (OAuth 2.1): how the host gets this server's access tokens. */
  oauth?: OAuthSettings;
  /** Set on a person's own connection to an OAuth server: whose tokens it uses. */
  oauthPerson?: { workspace: string; user: string };
}

/**
 * A remote server's OAuth settings. `authorization_code`: each person connects their own account
 * (per-person connections). `client_credentials`: the operator's client, one connection for everyone.
 * A `client_id` is a pre-registered client (for authorization servers without registration); without
 * one the host uses its client ID metadata document where the server supports it, else registers.
 */
export interface OAuthSettings {
  grant: 'authorization_code' | 'client_credentials';
  clientId?: string;
  clientSecret?: string;
  /** A PEM private key: `private_key_jwt` client authentication (client_credentials). */
  privateKey?: string;
  signingAlgorithm?: string;
  /** Scopes to ask for when neither the server's challenge nor its metadata names any. */
  scope?: string;
  /** client_credentials: the only authorization server the client's credentials are sent to. */
  issuer?: string;
}

/** Tools implemented inside the host (see `builtinTools`). */
export interface BuiltinServerConfig extends CommonServerConfig {
  transport: 'builtin';
  tools: Array<{ name: string; description?: string; inputSchema?: JsonSchema }>;
}

/** A REST API described by an OpenAPI 3.x document, offered as tools. */
export interface OpenApiServerConfig extends CommonServerConfig {
  transport: 'openapi';
  /** The document, read once at load: its operations and where their credentials go. */
  api: CompiledOpenApi;
  baseUrl: string;
  /** Header templates, filled per request like a remote server's. */
  headers: Record<string, string>;
  /** Security scheme name → value template (apiKey header/query, http bearer/basic). */
  security: Record<string, string>;
}

/** One validated server entry of `mcpServers`. */
export type ServerConfig = StdioServerConfig | RemoteServerConfig | BuiltinServerConfig | OpenApiServerConfig;
