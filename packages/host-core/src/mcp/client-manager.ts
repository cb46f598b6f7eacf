import type { ServerConfig } from '../config/mcp-config.js';
import { type Logger, silentLogger } from '../logger.js';
import type { McpView } from '../mcp-host.js';
import { environmentSecrets, Redactor } from '../redaction.js';
import type { ToolDefinition } from '../types.js';
import { promptsOf, resourcesOf, templatesOf } from './catalog.js';
import {
  type Connection,
  type ConnectionContext,
  type LocalConnection,
  type McpConnection,
  newConnection,
  openConnection,
  shutDown,
} from './connection.js';
import {
  McpToolCancelledError,
  McpToolCredentialsError,
  McpToolExecutionError,
  McpToolNotFoundError,
} from './errors.js';
import { defaultResultBudget, formatToolResult, type RawToolResult } from './format-tool-result.js';
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
import { type Person, PersonView, serverEnabled, type ViewSource } from './person-view.js';
import { PersonalPool, type PersonKey } from './personal-pool.js';
import { type RequestWork, runRequest } from './request-path.js';
import { hostConnection, resourceTools } from './resource-tools.js';
import { Slots } from './slots.js';
import { defaultRestartPolicy, Supervisor } from './supervisor.js';
import { approvalPolicy, autoContextTools, listedStates, ToolIndex, visibleTools } from './tool-index.js';

export * from './manager-types.js';

/** The fewest tools a provider accepts in one request (OpenAI: 128). */
const toolsPerRequestLimit = 128;

/**
 * Connects to every configured MCP server, merges their tools into one provider-neutral list, routes
 * tool calls, resource reads and prompt gets through one request path, and cleans up every connection
 * and child process. The rooms: connection.ts (open, shut down), transports.ts, tool-index.ts,
 * resource-tools.ts (the `host` server), request-errors.ts.
 */
export class McpClientManager {
  private readonly logger: Logger;
  private readonly context: ConnectionContext;
  private readonly resultBudget: number;
  private readonly env: NodeJS.ProcessEnv;
  /** Knows every secret this manager has seen; every log line and error passes through it. */
  readonly redactor: Redactor;
  private readonly connections = new Map<string, Connection>();
  /** The host's own resource tools, an ordinary local server named `host`. */
  private readonly host: LocalConnection;
  private readonly index = new ToolIndex();
  private readonly supervisor: Supervisor;
  private readonly slots: Slots;
  private readonly pool: PersonalPool;
  private closing: Promise<void> | undefined;

  constructor(options: McpClientManagerOptions = {}) {
    this.env = options.env ?? process.env;
    this.redactor = new Redactor(environmentSecrets(this.env));
    this.logger = this.redactor.wrap(options.logger ?? silentLogger);
    this.resultBudget = options.resultBudget ?? defaultResultBudget;
    this.context = {
      logger: this.logger,
      redactor: this.redactor,
      env: this.env,
      clientInfo: options.clientInfo ?? { name: 'ai-assistant', version: '0.1.0' },
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      now: options.now ?? (() => new Date()),
      onToolsChanged: () => this.rebuildIndex(),
      onFailed: (connection) => this.supervisor.failed(connection),
    };
    this.supervisor = new Supervisor((connection) => this.reopen(connection), this.logger, {
      ...defaultRestartPolicy,
      ...options.restartPolicy,
    });
    this.slots = new Slots(Math.max(1, options.maxConcurrentPerServer ?? 4));
    this.host = hostConnection(this);
    // Per-person connections are not supervised: a failed one is reopened on the person's next turn.
    this.pool = new PersonalPool(
      { ...this.context, onToolsChanged: () => {}, onFailed: () => {} },
      options.personalPool,
    );
  }

  /** Connects all servers in parallel; a server that fails is logged and skipped. Never throws. */
  async connect(servers: ServerConfig[]): Promise<void> {
    await Promise.all(
      servers.map(async (config) => {
        if (this.connections.has(config.name)) {
          this.logger.warn({ server: config.name }, 'MCP server already configured; keeping the first');
          return;
        }
        // A value filled from the environment may be a secret whatever its variable is called.
        this.redactor.pin(config.substituted ?? []);
        const connection = newConnection(config);
        this.connections.set(config.name, connection);
        if (config.disabled) {
          this.logger.info({ server: config.name }, 'MCP server disabled in config; not connecting');
          return;
        }
        if (config.connection === 'per_user') {
          connection.state = 'per_user';
          this.logger.info({ server: config.name }, 'MCP server connects per person, on their first use');
          return;
        }
        await openConnection(connection, this.context);
      }),
    );
    this.rebuildIndex();
    const offered = this.listTools().length;
    if (offered > toolsPerRequestLimit) {
      this.logger.warn(
        { tools: offered, limit: toolsPerRequestLimit },
        `${offered} tools are offered, more than OpenAI accepts in one request (${toolsPerRequestLimit}); each turn sends the most relevant, or narrow them with allowed_tools`,
      );
    }
  }

  /** A copy of a value with the pinned secrets, and `extra` (the asking person's), replaced. */
  redact<T>(value: T, extra?: Iterable<string>): T {
    return this.redactor.redactValue(value, extra) as T;
  }

  /** Each configured server with its state and tool count. */
  status(): ServerStatus[] {
    return [...this.connections.values()].map((connection) => ({
      name: connection.config.name,
      transport: connection.config.transport,
      state: connection.state,
      // A reason may quote a server's stderr or an HTTP error body: it leaves only redacted.
      ...(connection.reason ? { reason: this.redactor.redact(connection.reason) } : {}),
      toolCount: listedStates.has(connection.state) ? visibleTools(connection).length : 0,
      approval: approvalPolicy(connection),
      personalCredential: connection.config.personalCredential ?? false,
      enabledByDefault: connection.config.enabledByDefault ?? true,
      ...(connection.config.credentialHelp ? { credentialHelp: connection.config.credentialHelp } : {}),
      ...(connection.config.systemInstruction ? { description: connection.config.systemInstruction } : {}),
    }));
  }

  /**
   * Servers that cannot run now: restarting, or down for good, including one that failed at start-up
   * (its tools were never listed, and the model is told it is unavailable rather than left to guess).
   */
  unavailableServers(): Array<{ server: string; restarting: boolean }> {
    return [...this.connections.values()]
      .filter((connection) => connection.state !== 'connected' && listedStates.has(connection.state))
      .map((connection) => ({ server: connection.config.name, restarting: connection.state !== 'failed' }));
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
    const what = `read_resource ${uri}`;
    const secrets: string[] = [];
    const result = await this.request(
      this.connectionOf(server, what),
      what,
      options,
      { mcp: (client, call) => client.readResource({ uri }, call) },
      { secrets },
    );
    const text = result.contents
      .map((content) =>
        'text' in content && typeof content.text === 'string'
          ? content.text
          : `[${content.mimeType ?? 'binary'} resource ${content.uri}, ${Math.floor((String((content as { blob?: string }).blob ?? '').length * 3) / 4)} bytes]`,
      )
      .join('\n');
    const formatted = formatToolResult({ content: [{ type: 'text', text }] }, this.resultBudget);
    return {
      text: this.redactor.redact(formatted.text, secrets),
      isError: false,
      server,
      tool: 'read_resource',
    };
  }

  /** Fills a server's prompt and returns its messages as plain text. */
  async getPrompt(
    server: string,
    name: string,
    args: Record<string, string> = {},
    options: CallToolOptions = {},
  ): Promise<FilledPrompt> {
    const what = `prompt ${name}`;
    const secrets: string[] = [];
    const result = await this.request(
      this.connectionOf(server, what),
      what,
      options,
      { mcp: (client, call) => client.getPrompt({ name, arguments: args }, call) },
      { secrets },
    );
    return {
      ...(result.description ? { description: this.redactor.redact(result.description, secrets) } : {}),
      messages: result.messages.map((message) => ({
        role: message.role,
        content: this.redactor.redact(
          formatToolResult({ content: [message.content] }, this.resultBudget).text,
          secrets,
        ),
      })),
    };
  }

  /** The server and original tool name behind a model-facing name. */
  resolveTool(name: string): ResolvedTool | undefined {
    return this.index.resolve(name);
  }

  /**
   * Calls a tool by its model-facing name and returns its result as text. Throws
   * {@link McpToolNotFoundError}, `McpToolTimeoutError` (the request is cancelled on the server),
   * {@link McpToolExecutionError} (server failed or disconnected), {@link McpToolCredentialsError} or
   * {@link McpToolCancelledError} (the signal was aborted).
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: CallToolOptions = {},
  ): Promise<ToolCallOutcome> {
    const entry = this.index.get(name);
    if (!entry) throw new McpToolNotFoundError(name);
    return this.callEntry(entry.connection, entry.tool.name, name, args, options);
  }

  private async callEntry(
    connection: Connection,
    tool: string,
    name: string,
    args: Record<string, unknown>,
    options: CallToolOptions,
    slot?: string,
  ): Promise<ToolCallOutcome> {
    const secrets: string[] = [];
    const result = await this.request<RawToolResult>(
      connection,
      name,
      options,
      {
        mcp: (client, call) => client.callTool({ name: tool, arguments: args }, undefined, call),
        local: (local, context) => local.call(tool, args, context),
      },
      { secrets, ...(slot ? { slot } : {}) },
    );
    const formatted = formatToolResult(result, this.resultBudget);
    return {
      text: this.redactor.redact(formatted.text, secrets),
      isError: formatted.isError,
      server: connection.config.name,
      tool,
    };
  }

  /**
   * The `system_instruction` of every shared server whose tools are listed, then the instructions the
   * server itself gave at initialize (unless `server_instructions: false`). A server that never
   * connected has no tools to describe: it is named as unavailable instead.
   */
  private instructions(): Array<{ server: string; text: string }> {
    return [...this.connections.values()]
      .filter((connection) => listedStates.has(connection.state) && visibleTools(connection).length > 0)
      .flatMap((connection) => {
        const server = connection.config.name;
        const own =
          connection.config.serverInstructions !== false && connection.instructions
            ? [{ server, text: this.redactor.redact(connection.instructions) }]
            : [];
        const configured = connection.config.systemInstruction
          ? [{ server, text: connection.config.systemInstruction }]
          : [];
        return [...configured, ...own];
      });
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
  async forPerson(person: Person): Promise<McpView> {
    const wanted = [...this.connections.values()].filter(
      (connection) =>
        connection.state === 'per_user' &&
        person.credentials[connection.config.name] !== undefined &&
        serverEnabled(person.settings, connection.config),
    );
    const own = await Promise.all(
      wanted.map((connection) =>
        this.pool.get(connection.config, person, person.credentials[connection.config.name] as string),
      ),
    );
    const source: ViewSource = {
      shared: this,
      configs: () => [...this.connections.values()].map((connection) => connection.config),
      instructions: () => this.instructions(),
      // A person's own connection has its own slots: one person's calls never queue behind another's.
      callOn: (connection, tool, name, args, options) =>
        this.pool.use(connection, () =>
          this.callEntry(
            connection,
            tool,
            name,
            args,
            options,
            `${connection.config.name}\u0000${person.workspace}\u0000${person.user}`,
          ),
        ),
      warn: (fields, message) => this.logger.warn(fields, message),
    };
    return new PersonView(source, person, own);
  }

  /** A person's credential for `server` (or all) changed or was deleted: their own connections close. */
  forgetCredential(person: PersonKey, server?: string): void {
    this.pool.forget(person, server);
  }

  /** A workspace was uninstalled: every per-person connection of it closes now. */
  forgetWorkspace(workspace: string): void {
    this.pool.forgetWorkspace(workspace);
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
    this.closing ??= (async () => {
      const retries = this.supervisor.close();
      await Promise.all([
        ...[...this.connections.values()].map((connection) => shutDown(connection, 'closed by the host')),
        this.pool.close(),
      ]);
      // A reconnection under way when the close began ends here too.
      await retries;
      this.index.clear();
    })();
    return this.closing;
  }

  /** Reconnects a failed MCP server (the supervisor's retry); its tools are listed afresh. */
  private async reopen(connection: McpConnection): Promise<void> {
    if (this.closing) return;
    const reason = connection.reason;
    await shutDown(connection, reason ?? 'restarting');
    Object.assign(connection, {
      state: 'connecting',
      pid: undefined,
      descendants: new Set(),
      stderrTail: [],
    });
    await openConnection(connection, this.context);
    if (this.closing) {
      await shutDown(connection, 'closed by the host');
      return;
    }
    if (connection.state === 'connected') {
      connection.reason = undefined;
      this.logger.info(
        { server: connection.config.name, tools: visibleTools(connection).length, after: reason },
        'MCP server reconnected',
      );
    }
    this.rebuildIndex();
  }

  private connected(): Connection[] {
    return [...this.connections.values()].filter((connection) => connection.state === 'connected');
  }

  private connectionOf(server: string, what: string): Connection {
    const connection = this.connections.get(server);
    if (!connection) throw new McpToolNotFoundError(`${server}: ${what}`);
    return connection;
  }

  private rebuildIndex(): void {
    const hasResources = this.connected().some(
      (connection) => connection.resources.length > 0 || connection.resourceTemplates.length > 0,
    );
    this.host.tools = hasResources ? resourceTools : [];
    this.index.rebuild([...this.connections.values(), this.host]);
  }

  private request<T>(
    connection: Connection,
    what: string,
    options: CallToolOptions,
    work: RequestWork<T>,
    { secrets, slot = connection.config.name }: { secrets: string[]; slot?: string },
  ): Promise<T> {
    return this.slots.run(slot, () =>
      runRequest(connection, what, options, work, { redactor: this.redactor, env: this.env, secrets }),
    );
  }
}
