import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  McpError,
  type Prompt,
  type Resource,
  type ResourceTemplate,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { ServerConfig } from '../config/mcp-config.js';
import { type Logger, silentLogger } from '../logger.js';
import { environmentSecrets, Redactor } from '../redaction.js';
import { defaultMaxResponseBytes } from '../tools/openapi-tools.js';
import type { JsonSchema, ToolDefinition } from '../types.js';
import { capResponse } from './capped-response.js';
import {
  McpToolCancelledError,
  McpToolCredentialsError,
  McpToolExecutionError,
  McpToolNotFoundError,
  McpToolTimeoutError,
} from './errors.js';
import { defaultResultBudget, formatToolResult, type RawToolResult } from './format-tool-result.js';
import { currentTokens, fillHeaders, type RequestTokens, withTokens } from './header-templates.js';
import { builtinServer, type LocalServer, MissingCredentialsError, openApiServer } from './local-servers.js';
import { descendantsOf, terminate } from './process-tree.js';
import { missingPath, stderrCause, stderrLinesKept } from './stderr-cause.js';
import { encodeToolName } from './tool-names.js';

/** Options of {@link McpClientManager}. */
export interface McpClientManagerOptions {
  logger?: Logger;
  /** Time a server has to start and answer `initialize` and `tools/list` (default 10 000 ms). */
  connectTimeoutMs?: number;
  /** Largest tool result handed on, in characters (default 20 000). */
  resultBudget?: number;
  /** Name and version this host announces to servers. */
  clientInfo?: { name: string; version: string };
  /** Where `${NAME}` in header templates falls back to (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** Clock of the builtin tools (default: the real clock). */
  now?: () => Date;
}

/** Where a server stands. */
export type ServerState = 'connecting' | 'connected' | 'failed' | 'disabled' | 'closed';

/** One server's status, for logs, /healthz and `/servers`. */
export interface ServerStatus {
  name: string;
  transport: ServerConfig['transport'];
  state: ServerState;
  /** Why it failed or closed. */
  reason?: string;
  toolCount: number;
}

/** Per-call options of {@link McpClientManager.callTool}. */
export interface CallToolOptions {
  signal?: AbortSignal;
  /** Overrides the server's `timeout_ms`. */
  timeoutMs?: number;
  /** Per-request secrets for `${name}` header templates; never logged, never returned. */
  tokens?: RequestTokens;
}

/** A tool result as the model will read it. */
export interface ToolCallOutcome {
  text: string;
  isError: boolean;
  server: string;
  tool: string;
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

/** A tool to call with the user's message before the first model call. */
export interface AutoContextTool {
  server: string;
  /** Provider-safe name, as listed by {@link McpClientManager.listTools}. */
  name: string;
  inputSchema: JsonSchema;
}

interface Connection {
  config: ServerConfig;
  state: ServerState;
  reason?: string;
  client?: Client;
  transport?: Transport;
  /** Builtin and OpenAPI servers, served inside the host. */
  local?: LocalServer;
  pid?: number;
  /** Descendants of a stdio server seen so far, so a wrapper's grandchildren are stopped too. */
  descendants: Set<number>;
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
  stderrTail: string[];
}

const closeBudgetMs = 5000;

// Offered only when some connected server has resources.
const hostTools: ToolDefinition[] = [
  {
    name: hostToolNames.listResources,
    description:
      'Lists the resources (documents, files, records) the connected servers offer, with their server and URI.',
    inputSchema: {
      type: 'object',
      properties: { server: { type: 'string', description: 'Only this server (optional)' } },
    },
  },
  {
    name: hostToolNames.readResource,
    description:
      'Reads one resource by server and URI (from list_resources, or a URI filled in from a template).',
    inputSchema: {
      type: 'object',
      properties: { server: { type: 'string' }, uri: { type: 'string' } },
      required: ['server', 'uri'],
    },
  },
];

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // The SDK prefixes "MCP error <code>: " to a server's message that often carries the same prefix.
  const message = error.message
    .replace(/(MCP error -?\d+: )(?=MCP error -?\d+: )/g, '')
    .replace(/\s+/g, ' ')
    .slice(0, 300);
  // The SDK's HTTP transports put the HTTP status in `code`.
  const status = (error as { code?: unknown }).code;
  return typeof status === 'number' && status >= 400 && status < 600 ? `HTTP ${status}: ${message}` : message;
}

/** The fewest tools a provider accepts in one request (OpenAI: 128). */
const toolsPerRequestLimit = 128;

/**
 * Connects to every configured MCP server, merges their tools into one provider-neutral list,
 * routes tool calls, and cleans up every connection and child process.
 */
export class McpClientManager {
  private readonly logger: Logger;
  private readonly connectTimeoutMs: number;
  private readonly resultBudget: number;
  private readonly clientInfo: { name: string; version: string };
  private readonly env: NodeJS.ProcessEnv;
  private readonly now: () => Date;
  /** Knows every secret this manager has seen; every log line and error passes through it. */
  readonly redactor: Redactor;
  private readonly connections = new Map<string, Connection>();
  private toolIndex = new Map<string, { connection: Connection; tool: Tool }>();
  private closing: Promise<void> | undefined;

  constructor(options: McpClientManagerOptions = {}) {
    this.env = options.env ?? process.env;
    this.now = options.now ?? (() => new Date());
    this.redactor = new Redactor(environmentSecrets(this.env));
    this.logger = this.redactor.wrap(options.logger ?? silentLogger);
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.resultBudget = options.resultBudget ?? defaultResultBudget;
    this.clientInfo = options.clientInfo ?? { name: 'ai-assistant', version: '0.1.0' };
  }

  /** Connects all servers in parallel; a server that fails is logged and skipped. Never throws. */
  async connect(servers: ServerConfig[]): Promise<void> {
    await Promise.all(
      servers.map(async (config) => {
        if (this.connections.has(config.name)) {
          this.logger.warn({ server: config.name }, 'MCP server already configured; keeping the first');
          return;
        }
        const connection: Connection = {
          config,
          state: config.disabled ? 'disabled' : 'connecting',
          descendants: new Set(),
          tools: [],
          resources: [],
          resourceTemplates: [],
          prompts: [],
          stderrTail: [],
        };
        this.connections.set(config.name, connection);
        if (config.disabled) {
          this.logger.info({ server: config.name }, 'MCP server disabled in config; not connecting');
          return;
        }
        await this.open(connection);
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

  /** A copy of a value with every secret this manager knows replaced (for display and logs). */
  redact<T>(value: T): T {
    return this.redactor.redactValue(value) as T;
  }

  /** Each configured server with its state and tool count. */
  status(): ServerStatus[] {
    return [...this.connections.values()].map((connection) => ({
      name: connection.config.name,
      transport: connection.config.transport,
      state: connection.state,
      // A reason may quote a server's stderr or an HTTP error body: it leaves only redacted.
      ...(connection.reason ? { reason: this.redactor.redact(connection.reason) } : {}),
      toolCount: connection.state === 'connected' ? this.visibleTools(connection).length : 0,
    }));
  }

  /** Every tool of every connected server, named for the model and filtered by `allowed_tools`. */
  listTools(): ToolDefinition[] {
    const tools = [...this.toolIndex.entries()].map(([name, { tool }]) => ({
      name,
      description: tool.description ?? tool.title ?? tool.name,
      inputSchema: tool.inputSchema as JsonSchema,
    }));
    return this.hasResources() ? [...tools, ...hostTools] : tools;
  }

  /** Every resource of every connected server. */
  listResources(): ResourceEntry[] {
    return this.connected().flatMap((connection) =>
      connection.resources.map((resource) => ({
        server: connection.config.name,
        uri: resource.uri,
        name: resource.title ?? resource.name,
        ...(resource.description ? { description: resource.description } : {}),
        ...(resource.mimeType ? { mimeType: resource.mimeType } : {}),
      })),
    );
  }

  /** Every resource template of every connected server. */
  listResourceTemplates(): ResourceTemplateEntry[] {
    return this.connected().flatMap((connection) =>
      connection.resourceTemplates.map((template) => ({
        server: connection.config.name,
        uriTemplate: template.uriTemplate,
        name: template.title ?? template.name,
        ...(template.description ? { description: template.description } : {}),
      })),
    );
  }

  /** Every prompt of every connected server. */
  listPrompts(): PromptEntry[] {
    return this.connected().flatMap((connection) =>
      connection.prompts.map((prompt) => ({
        server: connection.config.name,
        name: prompt.name,
        ...(prompt.description ? { description: prompt.description } : {}),
        arguments: (prompt.arguments ?? []).map((argument) => ({
          name: argument.name,
          ...(argument.description ? { description: argument.description } : {}),
          ...(argument.required ? { required: true } : {}),
        })),
      })),
    );
  }

  /** Reads a resource of a server as text (blobs described), with the same timeouts and errors as tools. */
  async readResource(server: string, uri: string, options: CallToolOptions = {}): Promise<ToolCallOutcome> {
    const { client, timeoutMs } = this.serverClient(server, `read_resource ${uri}`);
    const result = await this.guard(
      `read_resource ${uri}`,
      server,
      options,
      options.timeoutMs ?? timeoutMs,
      () => client.readResource({ uri }, { signal: options.signal, timeout: options.timeoutMs ?? timeoutMs }),
    );
    const text = result.contents
      .map((content) =>
        'text' in content && typeof content.text === 'string'
          ? content.text
          : `[${content.mimeType ?? 'binary'} resource ${content.uri}, ${Math.floor((String((content as { blob?: string }).blob ?? '').length * 3) / 4)} bytes]`,
      )
      .join('\n');
    const formatted = formatToolResult({ content: [{ type: 'text', text }] }, this.resultBudget);
    return { text: this.redactor.redact(formatted.text), isError: false, server, tool: 'read_resource' };
  }

  /** Fills a server's prompt and returns its messages as plain text. */
  async getPrompt(
    server: string,
    name: string,
    args: Record<string, string> = {},
    options: CallToolOptions = {},
  ): Promise<FilledPrompt> {
    const { client, timeoutMs } = this.serverClient(server, `prompt ${name}`);
    const result = await this.guard(`prompt ${name}`, server, options, options.timeoutMs ?? timeoutMs, () =>
      client.getPrompt(
        { name, arguments: args },
        { signal: options.signal, timeout: options.timeoutMs ?? timeoutMs },
      ),
    );
    return {
      ...(result.description ? { description: result.description } : {}),
      messages: result.messages.map((message) => ({
        role: message.role,
        content: formatToolResult({ content: [message.content] }, this.resultBudget).text,
      })),
    };
  }

  private hasResources(): boolean {
    return this.connected().some(
      (connection) => connection.resources.length > 0 || connection.resourceTemplates.length > 0,
    );
  }

  private serverClient(server: string, what: string): { client: Client; timeoutMs: number } {
    const connection = this.connections.get(server);
    if (!connection) throw new McpToolNotFoundError(`${server}: ${what}`);
    if (connection.state !== 'connected' || !connection.client) {
      throw new McpToolExecutionError(
        what,
        server,
        `the server is not connected (${connection.reason ?? connection.state})`,
      );
    }
    return { client: connection.client, timeoutMs: connection.config.timeoutMs };
  }

  private async guard<T>(
    what: string,
    server: string,
    options: CallToolOptions,
    timeoutMs: number,
    work: () => Promise<T>,
  ): Promise<T> {
    try {
      return await work();
    } catch (error) {
      // Every failure of a server request becomes one of our typed errors, its text redacted.
      if (options.signal?.aborted) throw new McpToolCancelledError(what);
      const timedOut =
        (error instanceof McpError && error.code === ErrorCode.RequestTimeout) ||
        error instanceof McpToolTimeoutError;
      if (timedOut) throw new McpToolTimeoutError(what, server, timeoutMs, { cause: error });
      if (error instanceof MissingCredentialsError)
        throw new McpToolCredentialsError(what, server, error.placeholders);
      throw new McpToolExecutionError(what, server, this.redactor.redact(describeError(error)), {
        cause: error,
      });
    }
  }

  private async callHostTool(
    name: string,
    args: Record<string, unknown>,
    options: CallToolOptions,
  ): Promise<ToolCallOutcome> {
    if (name === hostToolNames.listResources) {
      const wanted = typeof args.server === 'string' ? args.server : undefined;
      const resources = this.listResources().filter((resource) => !wanted || resource.server === wanted);
      const templates = this.listResourceTemplates().filter(
        (template) => !wanted || template.server === wanted,
      );
      const lines = [
        ...resources.map(
          (resource) =>
            `- server: ${resource.server} | uri: ${resource.uri} | ${resource.name}${resource.description ? ` — ${resource.description}` : ''}`,
        ),
        ...templates.map(
          (template) =>
            `- server: ${template.server} | template: ${template.uriTemplate} | ${template.name}${template.description ? ` — ${template.description}` : ''}`,
        ),
      ];
      const text = lines.length > 0 ? lines.join('\n') : 'No resources are available.';
      return {
        text: formatToolResult({ content: [{ type: 'text', text }] }, this.resultBudget).text,
        isError: false,
        server: 'host',
        tool: 'list_resources',
      };
    }
    const server = typeof args.server === 'string' ? args.server : '';
    const uri = typeof args.uri === 'string' ? args.uri : '';
    if (!server || !uri) {
      return {
        text: 'read_resource needs "server" and "uri" (see list_resources)',
        isError: true,
        server: 'host',
        tool: 'read_resource',
      };
    }
    return this.readResource(server, uri, options);
  }

  /** The server and original tool name behind a model-facing name. */
  resolveTool(name: string): { server: string; tool: string } | undefined {
    if (name === hostToolNames.listResources) return { server: 'host', tool: 'list_resources' };
    if (name === hostToolNames.readResource) return { server: 'host', tool: 'read_resource' };
    const entry = this.toolIndex.get(name);
    return entry ? { server: entry.connection.config.name, tool: entry.tool.name } : undefined;
  }

  /**
   * Calls a tool by its model-facing name and returns its result as text. Throws
   * {@link McpToolNotFoundError}, {@link McpToolTimeoutError} (the request is cancelled on the
   * server), {@link McpToolExecutionError} (server failed or disconnected) or
   * {@link McpToolCancelledError} (the signal was aborted).
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: CallToolOptions = {},
  ): Promise<ToolCallOutcome> {
    if (
      (name === hostToolNames.listResources || name === hostToolNames.readResource) &&
      this.hasResources()
    ) {
      return this.callHostTool(name, args, options);
    }
    const entry = this.toolIndex.get(name);
    if (!entry) throw new McpToolNotFoundError(name);
    const { connection, tool } = entry;
    const server = connection.config.name;
    const client = connection.client;
    const local = connection.local;
    if (connection.state !== 'connected' || (!client && !local)) {
      throw new McpToolExecutionError(
        name,
        server,
        `the server is not connected (${connection.reason ?? connection.state})`,
      );
    }
    if (options.signal?.aborted) throw new McpToolCancelledError(name);
    const tokens = options.tokens ?? {};
    this.redactor.add(Object.values(tokens));
    const timeoutMs = options.timeoutMs ?? connection.config.timeoutMs;
    const config = connection.config;
    if (config.transport === 'http' || config.transport === 'sse') {
      const { missing } = fillHeaders(config.headers, tokens, this.env);
      if (missing.length > 0) throw new McpToolCredentialsError(name, server, missing);
    }
    const result = await this.guard<RawToolResult>(name, server, options, timeoutMs, () =>
      client
        ? withTokens(tokens, () =>
            client.callTool({ name: tool.name, arguments: args }, undefined, {
              signal: options.signal,
              timeout: timeoutMs,
            }),
          )
        : this.callLocal(local as LocalServer, tool.name, args, tokens, timeoutMs, options.signal),
    );
    const formatted = formatToolResult(result, this.resultBudget);
    return {
      text: this.redactor.redact(formatted.text),
      isError: formatted.isError,
      server,
      tool: tool.name,
    };
  }

  private async callLocal(
    local: LocalServer,
    tool: string,
    args: Record<string, unknown>,
    tokens: RequestTokens,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<RawToolResult> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      return await local.call(tool, args, {
        signal: combined,
        timeoutMs,
        tokens,
        secrets: (values) => this.redactor.add(values),
      });
    } catch (error) {
      if (timeout.aborted && !signal?.aborted)
        throw new McpToolTimeoutError(tool, '', timeoutMs, { cause: error });
      throw error;
    }
  }

  /** The configured `system_instruction` of every connected server. */
  systemInstructions(): string[] {
    return this.connected()
      .map((connection) => connection.config.systemInstruction)
      .filter((text): text is string => Boolean(text));
  }

  /** The `response_instruction` of the server behind a model-facing tool name. */
  responseInstructionFor(toolName: string): string | undefined {
    return this.toolIndex.get(toolName)?.connection.config.responseInstruction;
  }

  /** The configured `auto_context_tool` of every connected server that offers it. */
  autoContextTools(): AutoContextTool[] {
    return this.connected().flatMap((connection) => {
      const wanted = connection.config.autoContextTool;
      const tool = connection.tools.find((candidate) => candidate.name === wanted);
      if (!wanted) return [];
      if (!tool) {
        this.logger.warn(
          { server: connection.config.name, tool: wanted },
          'auto_context_tool is not offered by its server',
        );
        return [];
      }
      return [
        {
          server: connection.config.name,
          name: encodeToolName(connection.config.name, tool.name),
          inputSchema: tool.inputSchema as JsonSchema,
        },
      ];
    });
  }

  /** Ends every connection and child process (with descendants) within about 5 s. Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const all = [...this.connections.values()];
      await Promise.all(all.map((connection) => this.shutDown(connection, 'closed by the host')));
      this.toolIndex = new Map();
    })();
    return this.closing;
  }

  private connected(): Connection[] {
    return [...this.connections.values()].filter((connection) => connection.state === 'connected');
  }

  private visibleTools(connection: Connection): Tool[] {
    const allowed = connection.config.allowedTools;
    return allowed ? connection.tools.filter((tool) => allowed.includes(tool.name)) : connection.tools;
  }

  private rebuildIndex(): void {
    const index = new Map<string, { connection: Connection; tool: Tool }>();
    for (const connection of this.connected()) {
      for (const tool of this.visibleTools(connection)) {
        index.set(encodeToolName(connection.config.name, tool.name), { connection, tool });
      }
    }
    this.toolIndex = index;
  }

  private createTransport(connection: Connection): Transport {
    const config = connection.config;
    if (config.transport === 'stdio') {
      // Secrets passed on purpose in the child's env are secrets of the host too.
      this.redactor.pin(environmentSecrets(config.env));
      const transport = new StdioClientTransport({
        command: config.command,
        args: config.args,
        // The SDK adds only a minimal inherited set (PATH, HOME, …): the host's secrets stay here.
        env: config.env,
        cwd: config.cwd,
        stderr: 'pipe',
      });
      transport.stderr?.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString('utf8').split('\n')) {
          if (!line.trim()) continue;
          connection.stderrTail = [...connection.stderrTail.slice(1 - stderrLinesKept), line.slice(0, 500)];
          this.logger.debug({ server: config.name, stderr: line.slice(0, 2000) }, 'MCP server stderr');
        }
      });
      return transport;
    }
    const remote = config;
    if (remote.transport !== 'http' && remote.transport !== 'sse')
      throw new Error(`${remote.transport} has no transport`);
    this.redactor.pin(Object.values(fillHeaders(remote.headers, {}, this.env).headers));
    // Headers are filled on every request from that request's tokens (or the environment).
    const fetchWithHeaders = (input: string | URL | Request, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      for (const [header, value] of Object.entries(
        fillHeaders(remote.headers, currentTokens(), this.env).headers,
      )) {
        headers.set(header, value);
      }
      return fetch(input, { ...init, headers }).then((response) =>
        capResponse(response, remote.maxResponseBytes ?? defaultMaxResponseBytes),
      );
    };
    const url = new URL(remote.url);
    return remote.transport === 'http'
      ? new StreamableHTTPClientTransport(url, { fetch: fetchWithHeaders })
      : new SSEClientTransport(url, {
          fetch: fetchWithHeaders,
          eventSourceInit: { fetch: fetchWithHeaders },
        });
  }

  private async open(connection: Connection): Promise<void> {
    const name = connection.config.name;
    const started = Date.now();
    const config = connection.config;
    if (config.transport === 'builtin' || config.transport === 'openapi') {
      try {
        if (config.transport === 'openapi') {
          this.redactor.pin(
            Object.values(fillHeaders({ ...config.headers, ...config.security }, {}, this.env).headers),
          );
        }
        connection.local =
          config.transport === 'builtin'
            ? builtinServer(config, this.now)
            : openApiServer(config, this.env, (message) =>
                this.logger.warn({ server: name }, `OpenAPI: ${message}`),
              );
        connection.tools = connection.local.tools;
        connection.state = 'connected';
        this.logger.info(
          { server: name, transport: config.transport, tools: this.visibleTools(connection).length },
          'tool server ready',
        );
      } catch (error) {
        connection.state = 'failed';
        connection.reason = describeError(error);
        this.logger.error(
          { server: name, reason: connection.reason },
          'tool server failed to start; skipping it',
        );
      }
      return;
    }
    try {
      const client = new Client(this.clientInfo, {
        capabilities: {},
        listChanged: {
          tools: {
            onChanged: (error, tools) => {
              if (error || !tools) {
                this.logger[connection.state === 'closed' ? 'debug' : 'warn'](
                  { server: name, error: describeError(error) },
                  'MCP tool list refresh failed',
                );
                return;
              }
              connection.tools = tools;
              this.rebuildIndex();
              this.logger.info({ server: name, tools: tools.length }, 'MCP server tools changed');
            },
          },
          resources: {
            onChanged: (error, resources) => {
              if (error || !resources) return;
              connection.resources = resources;
              void this.listAll(client, 'templates').then(
                (templates) => {
                  connection.resourceTemplates = templates as ResourceTemplate[];
                },
                () => undefined,
              );
              this.logger.info({ server: name, resources: resources.length }, 'MCP server resources changed');
            },
          },
          prompts: {
            onChanged: (error, prompts) => {
              if (error || !prompts) return;
              connection.prompts = prompts;
              this.logger.info({ server: name, prompts: prompts.length }, 'MCP server prompts changed');
            },
          },
        },
      });
      if (config.transport === 'stdio') {
        // A mistyped path fails here with the folder it was resolved against, not as "exit code 1".
        const missing = missingPath(config.command, config.args, config.cwd);
        if (missing) throw new Error(missing);
      }
      const transport = this.createTransport(connection);
      connection.client = client;
      connection.transport = transport;
      transport.onerror = (error) => {
        // Closing aborts the transport's streams; what it reports then is expected, not a warning.
        const level = connection.state === 'closed' ? 'debug' : 'warn';
        this.logger[level]({ server: name, error: describeError(error) }, 'MCP transport error');
      };
      await withTimeout(
        (async () => {
          await client.connect(transport);
          if (transport instanceof StdioClientTransport && transport.pid) connection.pid = transport.pid;
          connection.tools = (await this.listAll(client, 'tools')) as Tool[];
          connection.resources = (await this.listAll(client, 'resources')) as Resource[];
          connection.resourceTemplates = (await this.listAll(client, 'templates')) as ResourceTemplate[];
          connection.prompts = (await this.listAll(client, 'prompts')) as Prompt[];
        })(),
        this.connectTimeoutMs,
        `no answer to initialize/tools/list within ${this.connectTimeoutMs} ms`,
      );
      if (connection.pid)
        for (const pid of await descendantsOf(connection.pid)) connection.descendants.add(pid);
      client.onclose = () => {
        if (connection.state !== 'connected') return;
        connection.state = 'failed';
        const cause = stderrCause(connection.stderrTail);
        connection.reason = `connection closed${cause ? `: ${cause}` : ''}`;
        this.logger.warn(
          { server: name, reason: connection.reason },
          'MCP server disconnected; its tools now fail',
        );
        this.rebuildIndex();
        void terminate([...connection.descendants]);
      };
      connection.state = 'connected';
      this.logger.info(
        {
          server: name,
          transport: connection.config.transport,
          tools: this.visibleTools(connection).length,
          ms: Date.now() - started,
        },
        'MCP server connected',
      );
    } catch (error) {
      const detail = describeError(error);
      const stderr = stderrCause(connection.stderrTail);
      connection.reason = stderr && !detail.includes(stderr) ? `${detail} (stderr: ${stderr})` : detail;
      this.logger.error(
        { server: name, reason: connection.reason },
        'MCP server failed to start; skipping it',
      );
      await this.shutDown(connection, connection.reason);
      connection.state = 'failed';
    }
  }

  /** Every page of a server's tools, resources, resource templates or prompts (none if not offered). */
  private async listAll(
    client: Client,
    kind: 'tools' | 'resources' | 'templates' | 'prompts',
  ): Promise<unknown[]> {
    const capabilities = client.getServerCapabilities();
    const offered =
      kind === 'tools'
        ? capabilities?.tools
        : kind === 'prompts'
          ? capabilities?.prompts
          : capabilities?.resources;
    if (!offered) return [];
    const items: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const parameters = cursor ? { cursor } : undefined;
      const result =
        kind === 'tools'
          ? await client
              .listTools(parameters)
              .then((response) => ({ items: response.tools, next: response.nextCursor }))
          : kind === 'resources'
            ? await client
                .listResources(parameters)
                .then((response) => ({ items: response.resources, next: response.nextCursor }))
            : kind === 'templates'
              ? await client
                  .listResourceTemplates(parameters)
                  .then((response) => ({ items: response.resourceTemplates, next: response.nextCursor }))
              : await client
                  .listPrompts(parameters)
                  .then((response) => ({ items: response.prompts, next: response.nextCursor }));
      items.push(...result.items);
      cursor = result.next;
      if (!cursor) break;
    }
    return items;
  }

  private async shutDown(connection: Connection, reason: string): Promise<void> {
    const wasConnected = connection.state === 'connected';
    if (connection.state !== 'failed') connection.state = 'closed';
    if (wasConnected || !connection.reason) connection.reason = reason;
    const { client, transport } = connection;
    connection.client = undefined;
    connection.transport = undefined;
    if (!client && !transport) return;
    if (client) client.onclose = undefined;
    const pid = connection.pid;
    if (pid) for (const descendant of await descendantsOf(pid)) connection.descendants.add(descendant);
    const graceful = client ? client.close() : (transport?.close() ?? Promise.resolve());
    await Promise.race([
      graceful.catch(() => {}),
      new Promise((resolve) => setTimeout(resolve, closeBudgetMs - 2000).unref()),
    ]);
    await terminate([...(pid ? [pid] : []), ...connection.descendants], 1000);
  }
}
