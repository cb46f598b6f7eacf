import type { Logger, ToolDefinition } from '@ai-assistant/chat-types';
import type { RemoteServerConfig, ServerConfig } from '../config/mcp-config.js';
import type { McpView } from '../mcp-host.js';
import type { OAuthService } from '../oauth/oauth-service.js';
import type { Redactor } from '../redaction.js';
import type { AppResource, AppTool } from '../tool-host.js';
import { appToolOf } from './app-views.js';
import { promptsOf, resourceServersOf, resourcesOf, templatesOf } from './catalog.js';
import {
  type Connection,
  type ConnectionContext,
  type LocalConnection,
  newConnection,
} from './connection.js';
import { toolNotFound } from './errors.js';
import { closeAll, managerParts } from './manager-parts.js';
import type {
  AutoContextTool,
  CallToolOptions,
  FilledPrompt,
  McpClientManagerOptions,
  PromptEntry,
  ResolvedTool,
  ResourceEntry,
  ResourceTemplateEntry,
  ServerStatus,
  ToolCallOutcome,
} from './manager-types.js';
import { openView, testOnce } from './open-view.js';
import type { Person } from './person.js';
import type { PersonalPool, PersonKey } from './personal-pool.js';
import type { Requests } from './requests.js';
import { hostConnection, resourceTools } from './resource-tools.js';
import { instructionsOf, statusOf, unavailableOf } from './server-status.js';
import { onFirstUse, type SharedStarts } from './shared-starts.js';
import type { Supervisor } from './supervisor.js';
import { autoContextTools, modelName, ToolIndex, warnOnManyTools } from './tool-index.js';

export * from './manager-types.js';

/**
 * Connects to every configured MCP server, merges their tools into one provider-neutral list, routes
 * tool calls, resource reads and prompt gets through one request path, and cleans up every connection
 * and child process. The rooms: manager-parts.ts (what it is made of), connection.ts (open, shut
 * down), transports.ts, tool-index.ts, resource-tools.ts (the `host` server), requests.ts and
 * request-path.ts (every request), open-view.ts (a person's view, a Test), request-errors.ts.
 */
export class McpClientManager {
  private readonly logger: Logger;
  private readonly context: ConnectionContext;
  /** Knows every secret this manager has seen; every log line and error passes through it. */
  readonly redactor: Redactor;
  private readonly connections = new Map<string, Connection>();
  /** The host's own resource tools, an ordinary local server named `host`. */
  private readonly host: LocalConnection;
  private readonly index = new ToolIndex();
  private readonly supervisor: Supervisor;
  private readonly requests: Requests;
  private readonly pool: PersonalPool;
  /** How shared servers start and stop: in turn, from cached lists, on first use. */
  private readonly starts: SharedStarts;
  /** MCP authorization: each person's OAuth grants (undefined: the app gave no redirect URI). */
  readonly oauth: OAuthService | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: McpClientManagerOptions = {}) {
    const parts = managerParts(options, {
      onToolsChanged: () => this.rebuildIndex(),
      onFailed: (connection) => this.supervisor.failed(connection),
      closing: () => this.closing !== undefined,
    });
    this.redactor = parts.redactor;
    this.logger = parts.logger;
    this.oauth = parts.oauth;
    this.context = parts.context;
    this.supervisor = parts.supervisor;
    this.requests = parts.requests;
    this.pool = parts.pool;
    this.starts = parts.starts;
    this.host = hostConnection(this);
  }

  /**
   * Starts every server, a few at a time (`startConcurrency`), and resolves once every server's tools
   * are listed: those kept in the catalog cache at once (their servers keep connecting behind, see
   * `started`), the others when their first start has ended. A server with `start: "on_first_use"` and
   * a cached list is not started; with none, it is started once to learn its tools, then stopped. A
   * server that fails is logged and skipped. Never throws.
   */
  async connect(servers: ServerConfig[]): Promise<void> {
    const added: Connection[] = [];
    for (const config of servers) {
      if (this.connections.has(config.name)) {
        this.logger.warn({ server: config.name }, 'MCP server already configured; keeping the first');
        continue;
      }
      const connection = newConnection(config);
      this.connections.set(config.name, connection);
      added.push(connection);
    }
    const cached = await this.starts.listCached(added);
    this.rebuildIndex();
    // Servers whose tools nobody knows yet start first; the cached ones reconnect behind them.
    const firstStarts = [
      ...added.filter((connection) => !cached.has(connection)),
      ...added.filter((connection) => cached.has(connection)),
    ].flatMap((connection) => {
      const start = this.starts.begin(connection);
      return cached.has(connection) ? [] : [start];
    });
    await Promise.all(firstStarts);
    this.rebuildIndex();
    // Every server counts: those still connecting with their cached tools too.
    warnOnManyTools(this.listTools().length, this.logger);
  }

  /**
   * Resolves once no start is waiting or under way: every server connected, failed (the supervisor's
   * backoff then decides), or stopped until first use.
   */
  started(): Promise<void> {
    return this.starts.started();
  }

  /** A copy of a value with the pinned secrets, and `extra` (the asking person's), replaced. */
  redact<T>(value: T, extra?: Iterable<string>): T {
    return this.redactor.redactValue(value, extra) as T;
  }

  /** Each configured server with its state and tool count. */
  status(): ServerStatus[] {
    return [...this.connections.values()].map((connection) => statusOf(connection, this.redactor));
  }

  /**
   * Servers that cannot run now: restarting, or down for good, including one that failed at start-up
   * (its tools were never listed, and the model is told it is unavailable rather than left to guess).
   */
  unavailableServers(): Array<{ server: string; restarting: boolean }> {
    return unavailableOf(this.connections.values());
  }

  /** Every tool of every connected server, named for the model and filtered by `allowed_tools`. */
  listTools(): ToolDefinition[] {
    return this.index.definitions();
  }

  /** Every resource of every connected server. */
  listResources(): ResourceEntry[] {
    return resourcesOf(this.connected());
  }

  /** Every resource template of every connected server. */
  listResourceTemplates(): ResourceTemplateEntry[] {
    return templatesOf(this.connected());
  }

  /** Every prompt of every connected server. */
  listPrompts(): PromptEntry[] {
    return promptsOf(this.connected());
  }

  /** Reads a resource of a server as text (blobs described), with the same timeouts and errors as tools. */
  async readResource(server: string, uri: string, options: CallToolOptions = {}): Promise<ToolCallOutcome> {
    return this.requests.readResource(this.connectionOf(server, `read_resource ${uri}`), uri, options);
  }

  /** Fills a server's prompt and returns its messages as plain text. */
  async getPrompt(
    server: string,
    name: string,
    args: Record<string, string> = {},
    options: CallToolOptions = {},
  ): Promise<FilledPrompt> {
    return this.requests.getPrompt(this.connectionOf(server, `prompt ${name}`), name, args, options);
  }

  /** Values a server suggests for its prompt's argument as typed so far (none without completions). */
  async completePromptArgument(
    server: string,
    prompt: string,
    argument: { name: string; value: string },
    context: Record<string, string> = {},
    options: CallToolOptions = {},
  ): Promise<string[]> {
    const connection = this.connectionOf(server, `prompt ${prompt}`);
    return this.requests.completePromptArgument(connection, prompt, argument, context, options);
  }

  /** MCP Apps: a tool of `server` its App's view may call (app-only ones included). */
  appTool(server: string, tool: string): AppTool | undefined {
    const connection = this.connections.get(server);
    return connection ? appToolOf(connection, tool) : undefined;
  }

  /** MCP Apps: calls a tool for an App's view; its result as sent is `outcome.app.result`. */
  callAppTool(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: CallToolOptions = {},
  ): Promise<ToolCallOutcome> {
    const connection = this.connections.get(server);
    if (!connection || !this.appTool(server, tool)) return Promise.reject(toolNotFound(`${server}: ${tool}`));
    return this.dispatch(connection, tool, modelName(connection, tool), args, {
      ...options,
      appResult: true,
    });
  }

  /** MCP Apps: reads a resource (an App's `ui://` view included) as sent, for the host's page only. */
  async readAppResource(server: string, uri: string, options: CallToolOptions = {}): Promise<AppResource> {
    return this.requests.readForApp(this.connectionOf(server, `read_resource ${uri}`), uri, options);
  }

  /** A configured remote server's config (for connecting it with OAuth). */
  remoteConfig(server: string): RemoteServerConfig | undefined {
    const config = this.connections.get(server)?.config;
    return config?.transport === 'http' || config?.transport === 'sse' ? config : undefined;
  }

  /** The server and original tool name behind a model-facing name. */
  resolveTool(name: string): ResolvedTool | undefined {
    return this.index.resolve(name);
  }

  /**
   * Calls a tool by its model-facing name and returns its result as text. A server still starting (or
   * stopped until its first use, which this call starts) is waited for within the call's own timeout,
   * and the call gets what is left of it. Throws a `ToolCallError`
   * (`TOOL_NOT_FOUND`, `REQUEST_TIMEOUT`: cancelled on the server, `TOOL_EXECUTION_FAILED`,
   * `MISSING_CREDENTIALS`) or a `CancelledError` (the signal was aborted).
   */
  callTool(
    name: string,
    args: Record<string, unknown>,
    options: CallToolOptions = {},
  ): Promise<ToolCallOutcome> {
    const entry = this.index.get(name);
    if (!entry) return Promise.reject(toolNotFound(name));
    return this.dispatch(entry.connection, entry.tool.name, name, args, options);
  }

  /**
   * Runs a call on its connection: at once when it is connected (the common case, kept lean: a server
   * that is never stopped), else once a server still starting (or stopped until its first use, which
   * this call starts) is up, within the call's own timeout.
   */
  private dispatch(
    connection: Connection,
    tool: string,
    name: string,
    args: Record<string, unknown>,
    options: CallToolOptions,
  ): Promise<ToolCallOutcome> {
    if (connection.kind === 'local' || (connection.state === 'connected' && !onFirstUse(connection)))
      return this.requests.callTool(connection, tool, name, args, options);
    return this.starts.use(connection, name, options, (left) =>
      this.requests.callTool(connection, tool, name, args, left),
    );
  }

  private instructions(): Array<{ server: string; text: string }> {
    return instructionsOf(this.connections.values(), this.redactor);
  }

  /** The configured `system_instruction` of every connected server. */
  systemInstructions(): string[] {
    return this.instructions().map((entry) => entry.text);
  }

  /**
   * One person's view for one turn: only their workspace's enabled servers, their own per-person
   * connections (opened now with their credential if not open yet), and `${token}` filled with their
   * credential for the server called. Per-person servers they have not connected are named in the
   * system prompt instead of offered.
   */
  forPerson(person: Person): Promise<McpView> {
    return openView(person, {
      shared: this,
      catalog: () => [...this.connections.values()],
      pool: this.pool,
      requests: this.requests,
      instructions: () => this.instructions(),
      resourceServers: () => this.resourceServers(),
      logger: this.logger,
    });
  }

  /**
   * Connects a server once, without keeping it, and lists its tools (an admin's Test before adding a
   * workspace's server). `secret` fills `${token}` for this test only. Never throws.
   */
  testServer(
    config: ServerConfig,
    secret?: string,
  ): Promise<{ ok: true; tools: string[] } | { ok: false; reason: string }> {
    return testOnce(config, secret, {
      ...this.context,
      onToolsChanged: () => {},
      onFailed: () => {},
      onEvent: undefined,
      growStartupLimit: false,
    });
  }

  /** A person's credential for `server` (or all) changed or was deleted: their own connections close. */
  forgetCredential(person: PersonKey, server?: string): void {
    this.pool.forget(person, server);
  }

  /** A workspace was uninstalled (or disabled `server`): its per-person connections (to it) close now. */
  forgetWorkspace(workspace: string, server?: string): void {
    this.pool.forgetWorkspace(workspace, server);
  }

  /**
   * A connection of the per-person pool as it stands now: `person`'s own, or (user '') a workspace's
   * shared one; undefined when it is not open. Its reason hides every secret seen, the person's too.
   */
  connectionStatus(person: PersonKey, server: string): ServerStatus | undefined {
    const connection = this.pool.find(person, server);
    const status = connection && statusOf(connection, this.redactor);
    return status?.reason ? { ...status, reason: this.redactor.redactForLog(status.reason) } : status;
  }

  /** Closes per-person connections idle for longer than the pool's `idleMs` now (also run on a timer). */
  closeIdleConnections(): void {
    this.pool.sweep();
  }

  /** How many per-person connections are open. */
  personalConnections(): number {
    return this.pool.size;
  }

  /** The `response_instruction` of the server behind a model-facing tool name. */
  responseInstructionFor(toolName: string): string | undefined {
    return this.index.get(toolName)?.connection.config.responseInstruction;
  }

  /** The configured `auto_context_tool` of every connected server that offers it. */
  autoContextTools(): AutoContextTool[] {
    return autoContextTools(this.connected(), (server, tool) =>
      this.logger.warn({ server, tool }, 'auto_context_tool is not offered by its server'),
    );
  }

  /** Ends every connection and child process (with descendants) within about 5 s. Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= closeAll(this.supervisor, this.connections.values(), this.pool, this.index, () =>
      this.starts.started(),
    );
    return this.closing;
  }

  /** The resource tools' reach: servers with resources or the capability. */
  private resourceServers(): string[] {
    return resourceServersOf(this.connected());
  }

  private connected(): Connection[] {
    return [...this.connections.values()].filter((connection) => connection.state === 'connected');
  }

  private connectionOf(server: string, what: string): Connection {
    const connection = this.connections.get(server);
    if (!connection) throw toolNotFound(`${server}: ${what}`);
    return connection;
  }

  private rebuildIndex(): void {
    if (this.closing) return;
    this.host.tools = this.resourceServers().length > 0 ? resourceTools : [];
    this.index.rebuild([...this.connections.values(), this.host]);
  }
}
