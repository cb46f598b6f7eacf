import type { Prompt, Resource, ResourceTemplateType, Tool, Transport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/client';
import type { ServerConfig } from '../config/mcp-config.js';
import { processEraVerdicts } from './eras.js';
import { fillHeaders } from './header-templates.js';
import { builtinServer, type LocalServer, openApiServer } from './local-servers.js';
import type { ServerEvent, ServerState } from './manager-types.js';
import { listAll } from './pagination.js';
import { descendantsOf, terminate } from './process-tree.js';
import { describeError, withTimeout } from './request-errors.js';
import { answerServerRequests, clientCapabilities, type InFlightRequest } from './server-requests.js';
import { startupLimits } from './startup.js';
import { missingPath, stderrCause } from './stderr-cause.js';
import { ExtensionRequests, speaksTaskExtension } from './task-extension.js';
import { visibleTools } from './tool-index.js';
import { createTransport, type TransportContext } from './transports.js';

interface BaseConnection {
  config: ServerConfig;
  state: ServerState;
  reason?: string;
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplateType[];
  prompts: Prompt[];
  /** Model-facing tool names, when not `mcp__<server>__<tool>` (the host's own tools). */
  toolName?: (tool: string) => string;
  /** What the server said at initialize about how to use it (capped), when it said anything. */
  instructions?: string;
}

/** A server spoken to over MCP: a child process (stdio) or a remote endpoint (Streamable HTTP, SSE). */
export interface McpConnection extends BaseConnection {
  kind: 'mcp';
  /** Set while connected. */
  client?: Client;
  transport?: Transport;
  /** The client's `connect()` while it runs (on stdio its era probe runs a short-lived process). */
  connecting?: Promise<void>;
  pid?: number;
  /** Descendants of a stdio server seen so far, so a wrapper's grandchildren are stopped too. */
  descendants: Set<number>;
  stderrTail: string[];
  /** When the transport refused a message over its read limit (the SDK then closes the connection). */
  overflowAt?: number;
  /**
   * Requests running now, by the progress token each carries: progress notifications find their
   * request here, and so do the server's own requests in the middle of one (elicitation, sampling).
   */
  inFlight: Map<number, InFlightRequest>;
  /** The next request's progress token. */
  nextToken: number;
  /** Set while connected to a 2026-07-28 server of the tasks extension: its tool calls go here. */
  extension?: ExtensionRequests;
  /** The start-up limit its last start needed: the next start begins there (a slow machine stays slow). */
  startupLimitMs?: number;
  /** Set while a start is waiting or under way; resolves when it ends, connected or not. */
  starting?: Promise<void>;
  /** `start: "on_first_use"`: calls waiting for it or running on it, and its idle timer. */
  users?: number;
  idleTimer?: NodeJS.Timeout;
  /** Set while a server started on first use is being stopped. */
  stopping?: Promise<void>;
}

export type { InFlightRequest };

/** A server that lives inside the host: builtin tools, an OpenAPI document, the host's resource tools. */
export interface LocalConnection extends BaseConnection {
  kind: 'local';
  local?: LocalServer;
}

/** One configured server and what is known of it. */
export type Connection = McpConnection | LocalConnection;

/** What opening a connection needs from the manager. */
export interface ConnectionContext extends TransportContext {
  clientInfo: { name: string; version: string };
  connectTimeoutMs: number;
  now: () => Date;
  /**
   * A server's tools (or its state) changed: the tool index must be rebuilt. `changed`: the server
   * whose `tools/list_changed` brought a new list.
   */
  onToolsChanged: (changed?: McpConnection) => void;
  /** An MCP server failed to start or went away: the supervisor decides what happens next. */
  onFailed: (connection: McpConnection) => void;
  /** Hears each attempt of a start and its end (the manager's shared servers only). */
  onEvent?: (event: ServerEvent) => void;
  /** Whether the host is closing: a start then makes no new attempt. */
  closing?: () => boolean;
  /**
   * Whether a start that runs out of time is tried again with a longer limit (the manager's shared
   * servers); a connection opened in a turn (a person's own, an admin's Test) has one attempt.
   */
  growStartupLimit?: boolean;
}

const closeBudgetMs = 5000;

/** A connection not opened yet (or never: disabled). */
export function newConnection(config: ServerConfig): Connection {
  const base = {
    config,
    state: (config.disabled ? 'disabled' : 'connecting') as ServerState,
    tools: [],
    resources: [],
    resourceTemplates: [],
    prompts: [],
  };
  return config.transport === 'builtin' || config.transport === 'openapi'
    ? { ...base, kind: 'local' }
    : { ...base, kind: 'mcp', descendants: new Set(), stderrTail: [], inFlight: new Map(), nextToken: 1 };
}

/** Opens a connection; a failure is logged and leaves it `failed` with a reason. Never throws. */
export function openConnection(connection: Connection, context: ConnectionContext): Promise<void> {
  return connection.kind === 'local' ? openLocal(connection, context) : openMcp(connection, context);
}

async function openLocal(connection: LocalConnection, context: ConnectionContext): Promise<void> {
  const config = connection.config;
  const name = config.name;
  try {
    if (config.transport === 'openapi') {
      context.redactor.pin(
        Object.values(fillHeaders({ ...config.headers, ...config.security }, {}, context.env).headers),
      );
      connection.local = openApiServer(config, context.env, (message) =>
        context.logger.warn({ server: name }, `OpenAPI: ${message}`),
      );
    } else if (config.transport === 'builtin') {
      connection.local = builtinServer(config, context.now);
    }
    connection.tools = connection.local?.tools ?? [];
    connection.state = 'connected';
    context.logger.info(
      { server: name, transport: config.transport, tools: visibleTools(connection).length },
      'tool server ready',
    );
  } catch (error) {
    connection.state = 'failed';
    connection.reason = describeError(error);
    context.logger.error(
      { server: name, reason: connection.reason },
      'tool server failed to start; skipping it',
    );
  }
}

/** How long a stdio server has to answer `server/discover` before it is taken for a 2025 server. */
const stdioProbeMs = 5_000;

/**
 * Some 2025 stdio servers exit on any request before `initialize` (those on the Rust SDK do): the
 * question asked on their process ends it, and the next start opens with `initialize` at once.
 */
function probeEndedProcess(error: unknown): boolean {
  return error instanceof Error && /closed during the server\/discover probe/.test(error.message);
}

/**
 * How a connection finds its era: `auto` asks with `server/discover` and falls back to `initialize`
 * (the default); the HTTP+SSE transport predates the 2026 revision, so its servers are 2025 at once.
 */
function negotiationOf(config: McpConnection['config']): 'auto' | 'legacy' | { pin: string } {
  if (config.protocolVersion === '2026-07-28') return { pin: '2026-07-28' };
  if (config.protocolVersion === '2025-11-25' || config.transport === 'sse') return 'legacy';
  return 'auto';
}

/**
 * In 2026-07-28 a server's list changes come only on a `subscriptions/listen` stream. The SDK opens it
 * after a probe, not when it connects from a known era (`prior`): then the host opens it, for the lists
 * the server says change. 2025 servers send their changes unasked.
 */
async function listenForChanges(client: Client): Promise<void> {
  if (client.getProtocolEra() !== 'modern' || client.autoOpenedSubscription) return;
  const capabilities = client.getServerCapabilities();
  const filter = {
    ...(capabilities?.tools?.listChanged ? { toolsListChanged: true } : {}),
    ...(capabilities?.resources?.listChanged ? { resourcesListChanged: true } : {}),
    ...(capabilities?.prompts?.listChanged ? { promptsListChanged: true } : {}),
  };
  if (Object.keys(filter).length > 0) await client.listen(filter);
}

function newClient(connection: McpConnection, context: ConnectionContext): Client {
  const name = connection.config.name;
  const refreshFailed = (error: unknown) =>
    // While closing, a refresh that finds the connection gone is expected.
    context.logger[connection.state === 'closed' ? 'debug' : 'warn'](
      { server: name, error: describeError(error) },
      'MCP list refresh failed',
    );
  const client: Client = new Client(context.clientInfo, {
    capabilities: clientCapabilities,
    versionNegotiation: {
      mode: negotiationOf(connection.config),
      // On stdio a server that stays silent is a 2025 one, so the question need not wait long; over
      // HTTP silence is an outage and waits for the request's own limit.
      ...(connection.config.transport === 'stdio' ? { probe: { timeoutMs: stdioProbeMs } } : {}),
    },
    listChanged: {
      tools: {
        onChanged: (error, tools) => {
          if (error || !tools) return refreshFailed(error);
          connection.tools = tools;
          context.onToolsChanged(connection);
          context.logger.info({ server: name, tools: tools.length }, 'MCP server tools changed');
        },
      },
      resources: {
        onChanged: (error, resources) => {
          if (error || !resources) return refreshFailed(error);
          connection.resources = resources;
          void listAll(client, 'templates').then((templates) => {
            connection.resourceTemplates = templates as ResourceTemplateType[];
            context.onToolsChanged();
          }, refreshFailed);
          context.logger.info({ server: name, resources: resources.length }, 'MCP server resources changed');
        },
      },
      prompts: {
        onChanged: (error, prompts) => {
          if (error || !prompts) return refreshFailed(error);
          connection.prompts = prompts;
          context.logger.info({ server: name, prompts: prompts.length }, 'MCP server prompts changed');
        },
      },
    },
  });
  answerServerRequests(client, connection, context.logger);
  return client;
}

/** Package runners download a server on its first start, which often takes longer than the limit. */
const packageRunner = /^(npx|pnpx|bunx|uvx|pipx|pnpm|yarn|npm)$/;

/** For a stdio server started through a package runner: why its first start may time out, and what to do. */
function downloadHint(config: McpConnection['config'], limitMs: number): string {
  if (config.transport !== 'stdio') return '';
  const runner =
    config.command
      .split(/[\\/]/)
      .pop()
      ?.replace(/\.(cmd|exe)$/, '') ?? '';
  if (!packageRunner.test(runner)) return '';
  return `; ${runner} may still be downloading the server on its first start: run "${[config.command, ...(config.args ?? [])].join(' ')}" once by hand to download it (it then waits for input: Ctrl-C), or give the entry "startup_timeout_ms" above ${limitMs}`;
}

/**
 * Starts an MCP server under its start-up limit; an attempt that runs out of time is ended and tried
 * again at once with a longer limit (see `startupLimits`), beginning at the limit its last start
 * needed. Any other failure, or the last limit, leaves it `failed` for the supervisor.
 */
async function openMcp(connection: McpConnection, context: ConnectionContext): Promise<void> {
  const config = connection.config;
  const name = config.name;
  const base = config.startupTimeoutMs ?? context.connectTimeoutMs;
  const limits = context.growStartupLimit ? startupLimits(base) : [base];
  const from = Math.max(
    0,
    limits.findIndex((limit) => limit >= (connection.startupLimitMs ?? 0)),
  );
  for (let index = from; index < limits.length; index++) {
    if (context.closing?.()) return;
    const limitMs = limits[index] as number;
    const attempt = index - from + 1;
    const nextLimitMs = limits[index + 1];
    context.onEvent?.({ type: 'starting', server: name, attempt, limitMs });
    const began = Date.now();
    const outcome = await attemptMcp(connection, context, limitMs);
    if (outcome === 'connected') {
      connection.startupLimitMs = limitMs;
      context.onEvent?.({
        type: 'connected',
        server: name,
        attempt,
        ms: Date.now() - began,
        tools: visibleTools(connection).length,
      });
      return;
    }
    // The host began to close meanwhile: no retry, no supervisor, nothing left running.
    if (connection.state === 'closed' || context.closing?.()) {
      await shutDown(connection, 'closed by the host', { hung: true });
      return;
    }
    if (outcome === 'timed-out') connection.startupLimitMs = limitMs;
    if (outcome === 'timed-out' && nextLimitMs !== undefined) {
      context.logger.warn(
        { server: name, limitMs, nextLimitMs, reason: connection.reason },
        'MCP server slow to start; trying again with a longer limit',
      );
      context.onEvent?.({ type: 'start-timed-out', server: name, attempt, limitMs, nextLimitMs });
      await shutDown(connection, connection.reason ?? 'start-up timed out', { hung: true });
      Object.assign(connection, {
        state: 'connecting',
        reason: undefined,
        pid: undefined,
        descendants: new Set(),
        stderrTail: [],
      });
      continue;
    }
    context.logger.error({ server: name, reason: connection.reason }, 'MCP server failed to start');
    await shutDown(connection, connection.reason ?? 'failed to start', { hung: outcome === 'timed-out' });
    connection.state = 'failed';
    context.onEvent?.({
      type: 'start-failed',
      server: name,
      attempt,
      reason: context.redactor.redact(connection.reason ?? 'failed to start'),
    });
    context.onFailed(connection);
    return;
  }
}

/** One attempt to start an MCP server within `startupTimeoutMs`; a failure leaves its reason set. */
async function attemptMcp(
  connection: McpConnection,
  context: ConnectionContext,
  startupTimeoutMs: number,
  askedEra = false,
): Promise<'connected' | 'timed-out' | 'failed'> {
  const config = connection.config;
  const name = config.name;
  const started = Date.now();
  const timeoutMessage = `no answer to initialize/tools/list within ${startupTimeoutMs} ms${downloadHint(config, startupTimeoutMs)}`;
  try {
    if (config.transport === 'stdio') {
      // A mistyped path fails here with the folder it was resolved against, not as "exit code 1".
      const missing = missingPath(config.command, config.args, config.cwd);
      if (missing) throw new Error(missing);
    }
    const client = newClient(connection, context);
    const transport = await createTransport(connection, context);
    connection.client = client;
    connection.transport = transport;
    // The host began to close before there was anything for it to close: nothing is spawned now.
    if (context.closing?.()) throw new Error('closed by the host');
    transport.onerror = (error) => {
      // The stdio transport refuses a message over its read buffer and then closes the connection.
      if (/exceeded maximum size/.test(error.message)) connection.overflowAt = Date.now();
      // Closing aborts the transport's streams, and a 2025 server refuses the era probe (`server/discover`)
      // before the connection falls back to `initialize`: what either reports is expected, not a warning.
      // A connect that fails is reported with its reason.
      const level = connection.state === 'closed' || !client.getProtocolEra() ? 'debug' : 'warn';
      context.logger[level]({ server: name, error: describeError(error) }, 'MCP transport error');
    };
    await withTimeout(
      (async () => {
        const prior = negotiationOf(config) === 'auto' ? processEraVerdicts.prior(config) : undefined;
        const connecting = client.connect(transport, prior ? { prior } : undefined);
        connection.connecting = connecting;
        await connecting;
        processEraVerdicts.record(config, client);
        if (speaksTaskExtension(client))
          connection.extension = new ExtensionRequests(transport, client, context.clientInfo);
        await listenForChanges(client).catch((error: unknown) =>
          // The server's tools still work; only their changes will not be heard until it reconnects.
          context.logger.warn(
            { server: name, error: describeError(error) },
            'MCP server refused the change stream (subscriptions/listen); its list changes will not be heard',
          ),
        );
        const instructions = client.getInstructions()?.trim();
        // A server's own words go into the system prompt: bounded, so one server cannot crowd it.
        connection.instructions = instructions ? instructions.slice(0, 4000) : undefined;
        const pid = (transport as { pid?: number | null }).pid;
        if (pid) connection.pid = pid;
        connection.tools = (await listAll(client, 'tools')) as Tool[];
        connection.resources = (await listAll(client, 'resources')) as Resource[];
        connection.resourceTemplates = (await listAll(client, 'templates')) as ResourceTemplateType[];
        connection.prompts = (await listAll(client, 'prompts')) as Prompt[];
        if (config.logLevel && client.getServerCapabilities()?.logging)
          await client.setLoggingLevel(config.logLevel);
      })(),
      startupTimeoutMs,
      timeoutMessage,
    );
    if (connection.pid)
      for (const pid of await descendantsOf(connection.pid)) connection.descendants.add(pid);
    client.onclose = () => {
      if (connection.state !== 'connected') return;
      connection.state = 'failed';
      const cause = connection.overflowAt
        ? 'it sent a message larger than the 10 MB read limit'
        : stderrCause(connection.stderrTail);
      connection.reason = `connection closed${cause ? `: ${cause}` : ''}`;
      context.logger.warn({ server: name, reason: connection.reason }, 'MCP server disconnected');
      void terminate([...connection.descendants]);
      context.onFailed(connection);
      context.onToolsChanged();
    };
    // Start-up chatter ("serving on stdio") explains nothing later: a later failure reads fresh lines.
    connection.stderrTail = [];
    connection.overflowAt = undefined;
    connection.state = 'connected';
    context.logger.info(
      {
        server: name,
        transport: config.transport,
        tools: visibleTools(connection).length,
        ms: Date.now() - started,
      },
      'MCP server connected',
    );
    return 'connected';
  } catch (error) {
    processEraVerdicts.forget(config);
    if (
      !askedEra &&
      config.transport === 'stdio' &&
      probeEndedProcess(error) &&
      context.closing?.() !== true
    ) {
      // The era question ended the process: a 2025 server that allows nothing before `initialize`.
      processEraVerdicts.recordLegacy(config);
      await shutDown(connection, 'the era question ended it');
      connection.state = 'connecting';
      return attemptMcp(connection, context, startupTimeoutMs, true);
    }
    const detail = describeError(error);
    const stderr = stderrCause(connection.stderrTail);
    connection.reason = stderr && !detail.includes(stderr) ? `${detail} (stderr: ${stderr})` : detail;
    return error instanceof Error && error.message === timeoutMessage ? 'timed-out' : 'failed';
  }
}

/**
 * Ends a connection and its child process with every descendant (within about 5 s). `hung`: the
 * process stopped answering (a start that ran out of time), so it is not asked to exit first.
 */
export async function shutDown(
  connection: Connection,
  reason: string,
  { hung = false }: { hung?: boolean } = {},
): Promise<void> {
  const wasConnected = connection.state === 'connected';
  if (connection.state !== 'failed') connection.state = 'closed';
  if (wasConnected || !connection.reason) connection.reason = reason;
  if (connection.kind === 'local') return;
  const { client, transport } = connection;
  connection.client = undefined;
  connection.transport = undefined;
  connection.extension?.close(new Error(`the connection closed: ${reason}`));
  connection.extension = undefined;
  if (!client && !transport) return;
  if (client) client.onclose = undefined;
  // Known before `initialize` is answered too: a start that hangs there has a process to end.
  const pid = connection.pid ?? (transport as { pid?: number | null } | undefined)?.pid ?? undefined;
  if (pid) for (const descendant of await descendantsOf(pid)) connection.descendants.add(descendant);
  // A client still finding its era has not taken the transport yet: closing the transport itself is
  // what ends the `server/discover` probe and its short-lived process.
  const connecting = connection.connecting;
  connection.connecting = undefined;
  const closeBoth = () =>
    Promise.all(
      // A connect still under way ends once its probe's process is reaped: that is waited for too.
      [client?.close(), transport?.close(), connecting].map((closing) => closing?.catch(() => {})),
    );
  if (hung) {
    await terminate([...(pid ? [pid] : []), ...connection.descendants], 1000);
    // The process is gone: the SDK's close returns at once.
    await closeBoth();
    return;
  }
  const graceful = closeBoth();
  await Promise.race([
    graceful.catch(() => {}),
    new Promise((resolve) => setTimeout(resolve, closeBudgetMs - 2000).unref()),
  ]);
  await terminate([...(pid ? [pid] : []), ...connection.descendants], 1000);
}

/**
 * Starts a configured server: a disabled one stays closed, a per-person one waits for its people (no
 * shared connection), any other connects now. Values the config filled from the environment may be
 * secrets whatever their variables are called: they are pinned first.
 */
export async function startConnection(connection: Connection, context: ConnectionContext): Promise<void> {
  const config = connection.config;
  context.redactor.pin(config.substituted ?? []);
  if (config.disabled) {
    context.logger.info({ server: config.name }, 'MCP server disabled in config; not connecting');
    return;
  }
  if (config.connection === 'per_user') {
    connection.state = 'per_user';
    context.logger.info({ server: config.name }, 'MCP server connects per person, on their first use');
    return;
  }
  await openConnection(connection, context);
}
