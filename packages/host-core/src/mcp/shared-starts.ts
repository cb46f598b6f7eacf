import type { CallToolOptions } from '../tool-host.js';
import {
  type Connection,
  type ConnectionContext,
  type McpConnection,
  openConnection,
  shutDown,
  startConnection,
} from './connection.js';
import { requestCancelled, requestFailed } from './errors.js';
import { StartQueue } from './startup.js';
import { reopenConnection } from './supervisor.js';
import { cachedTools, catalogKey, type ToolCatalogCache } from './tool-catalog-cache.js';

/** Whether a server starts on its first use (and stops when idle). */
export function onFirstUse(connection: Connection): connection is McpConnection {
  return connection.config.transport === 'stdio' && connection.config.start === 'on_first_use';
}

/**
 * How the manager's shared servers start and stop: a few at a time (the supervisor's retries take
 * turns too), their tool lists kept in the catalog cache and listed from it before they connect, a
 * call to one still starting waiting for it within its own deadline, and a server started on first use
 * started by its first call and stopped when idle.
 */
export class SharedStarts {
  private readonly queue: StartQueue;
  /** Starts waiting or under way (first starts, starts on first use, the supervisor's retries). */
  private readonly underWay = new Set<Promise<void>>();
  /** Each server's tool list as last loaded from or saved to the cache (JSON), to skip writing it again. */
  private readonly kept = new Map<string, string>();

  constructor(
    private readonly context: ConnectionContext,
    private readonly cache: ToolCatalogCache | undefined,
    concurrency: number,
  ) {
    this.queue = new StartQueue(Math.max(1, concurrency));
  }

  /** Lists each server's tools from the catalog cache, where it has them; the connections it did. */
  async listCached(connections: Connection[]): Promise<Set<Connection>> {
    const listed = await Promise.all(
      connections.map(async (connection) => ((await this.loadCached(connection)) ? [connection] : [])),
    );
    return new Set(listed.flat());
  }

  /**
   * Starts a configured server as its entry says; resolves when its first start has ended. One started
   * on first use with its tools listed is not started now; with none, it starts once to learn them.
   */
  begin(connection: Connection): Promise<void> {
    const config = connection.config;
    if (connection.kind === 'local' || config.disabled || config.connection === 'per_user')
      return startConnection(connection, this.context);
    this.context.redactor.pin(config.substituted ?? []);
    if (onFirstUse(connection) && connection.tools.length > 0) {
      connection.state = 'idle';
      return Promise.resolve();
    }
    return this.inTurn(connection, async () => {
      await openConnection(connection, this.context);
      await this.afterStart(connection, onFirstUse(connection));
    });
  }

  /** The supervisor's retry of a failed server, in its turn. */
  reopen(connection: McpConnection): Promise<void> {
    return this.inTurn(connection, async () => {
      await reopenConnection(connection, this.context, () => this.closing());
      await this.afterStart(connection, false);
    });
  }

  /**
   * Runs a request on a server that is starting, waits for its first use, or was started on first use:
   * it waits for the start within its own deadline (`run` gets what is left of it), and a server started
   * on first use keeps running until the request ends.
   */
  async use<T>(
    connection: McpConnection,
    what: string,
    options: CallToolOptions,
    run: (options: CallToolOptions) => Promise<T>,
  ): Promise<T> {
    connection.users = (connection.users ?? 0) + 1;
    clearTimeout(connection.idleTimer);
    try {
      return await run(await this.whenStarted(connection, what, options));
    } finally {
      connection.users -= 1;
      this.armIdleStop(connection);
    }
  }

  /** Keeps a connected server's tool list in the catalog cache (after `tools/list_changed`). */
  keep(connection: McpConnection): void {
    if (connection.state === 'connected') void this.keepCatalog(connection);
  }

  /**
   * Resolves once no start is waiting or under way: every server connected, failed (the supervisor's
   * backoff then decides), or stopped until first use.
   */
  async started(): Promise<void> {
    while (this.underWay.size > 0) await Promise.allSettled([...this.underWay]);
  }

  private closing(): boolean {
    return this.context.closing?.() ?? false;
  }

  /** Waits for `connection`'s start (begun now if it waits for its first use); the options left after. */
  private async whenStarted(
    connection: McpConnection,
    what: string,
    options: CallToolOptions,
  ): Promise<CallToolOptions> {
    if (connection.state === 'idle' && !connection.starting) this.startOnUse(connection);
    const starting = connection.starting;
    if (!starting || connection.state === 'connected') return options;
    this.queue.hurry(connection.config.name);
    const timeoutMs = options.timeoutMs ?? connection.config.timeoutMs;
    const began = Date.now();
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const outcome = await Promise.race([
      starting.then(() => 'started' as const),
      new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), timeoutMs);
      }),
      new Promise<'cancelled'>((resolve) => {
        onAbort = () => resolve('cancelled');
        if (options.signal?.aborted) onAbort();
        else options.signal?.addEventListener('abort', onAbort, { once: true });
      }),
    ]).finally(() => {
      clearTimeout(timer);
      if (onAbort) options.signal?.removeEventListener('abort', onAbort);
    });
    if (outcome === 'cancelled') throw requestCancelled(what);
    if (outcome === 'late')
      throw requestFailed(
        what,
        connection.config.name,
        `the server is still starting; it was not ready within the call's ${timeoutMs} ms (try again in a moment)`,
      );
    return { ...options, timeoutMs: Math.max(1, timeoutMs - (Date.now() - began)) };
  }

  /** A call needs a server started on first use: it starts in the next free turn. */
  private startOnUse(connection: McpConnection): void {
    void this.inTurn(connection, async () => {
      // A stop still under way ends first: its process's descendants are not the new one's.
      await connection.stopping;
      if (this.closing()) return;
      connection.state = 'connecting';
      await openConnection(connection, this.context);
      await this.afterStart(connection, false);
    });
  }

  /** Runs a start in its turn; `connection.starting` tells calls what to wait for. */
  private inTurn(connection: McpConnection, work: () => Promise<void>): Promise<void> {
    const starting: Promise<void> = this.queue
      .run(connection.config.name, () => (this.closing() ? Promise.resolve() : work()))
      .finally(() => {
        this.underWay.delete(starting);
        if (connection.starting === starting) connection.starting = undefined;
      });
    connection.starting = starting;
    this.underWay.add(starting);
    return starting;
  }

  /** After a start: the index, the catalog cache, and a server started on first use's idle stop. */
  private async afterStart(connection: McpConnection, learning: boolean): Promise<void> {
    if (this.closing()) {
      await shutDown(connection, 'closed by the host');
      return;
    }
    this.context.onToolsChanged();
    if (connection.state !== 'connected') return;
    await this.keepCatalog(connection);
    if (!onFirstUse(connection)) return;
    if (learning && !connection.users) await this.stopUntilUsed(connection, 'learned');
    else this.armIdleStop(connection);
  }

  /** A server started on first use with no call running is stopped after its idle time. */
  private armIdleStop(connection: McpConnection): void {
    clearTimeout(connection.idleTimer);
    const config = connection.config;
    if (config.transport !== 'stdio' || config.start !== 'on_first_use') return;
    if (connection.users || connection.state !== 'connected' || this.closing()) return;
    connection.idleTimer = setTimeout(() => {
      connection.idleTimer = undefined;
      if (!connection.users && connection.state === 'connected') void this.stopUntilUsed(connection, 'idle');
    }, config.idleStopMs ?? 600_000);
    connection.idleTimer.unref();
  }

  /** Stops a server started on first use; its tools stay listed and its next call starts it again. */
  private async stopUntilUsed(connection: McpConnection, why: 'idle' | 'learned'): Promise<void> {
    const stopping = shutDown(
      connection,
      why === 'idle' ? 'stopped after its idle time' : 'stopped until its first use',
    );
    connection.state = 'idle';
    connection.reason = undefined;
    connection.stopping = stopping;
    await stopping;
    if (connection.stopping === stopping) connection.stopping = undefined;
    this.context.logger.info(
      { server: connection.config.name, why },
      'MCP server stopped until its next use',
    );
    this.context.onToolsChanged();
    this.context.onEvent?.({ type: 'stopped', server: connection.config.name, why });
  }

  /** Lists a server's tools from the catalog cache, when it has them; whether it did. */
  private async loadCached(connection: Connection): Promise<boolean> {
    const config = connection.config;
    const key = catalogKey(config);
    if (
      !this.cache ||
      !key ||
      connection.kind !== 'mcp' ||
      config.disabled ||
      config.connection === 'per_user'
    )
      return false;
    try {
      const tools = cachedTools(await this.cache.load(key));
      if (!tools) return false;
      connection.tools = tools;
      this.kept.set(config.name, JSON.stringify(tools));
      this.context.onEvent?.({ type: 'cached', server: config.name, tools: tools.length });
      return true;
    } catch (error) {
      this.context.logger.warn(
        { server: config.name, error: this.context.redactor.redact(String(error)) },
        'cannot read the tool list kept in the store; the server lists its tools once it connects',
      );
      return false;
    }
  }

  /** Keeps a connected server's tool list in the catalog cache, when it changed. */
  private async keepCatalog(connection: McpConnection): Promise<void> {
    const key = catalogKey(connection.config);
    if (!this.cache || !key) return;
    const json = JSON.stringify(connection.tools);
    if (this.kept.get(connection.config.name) === json) return;
    try {
      await this.cache.save(key, connection.tools);
      this.kept.set(connection.config.name, json);
      this.context.onEvent?.({
        type: 'kept',
        server: connection.config.name,
        tools: connection.tools.length,
      });
    } catch (error) {
      this.context.logger.warn(
        { server: connection.config.name, error: this.context.redactor.redact(String(error)) },
        'cannot keep the tool list in the store; a restart lists it once the server connects',
      );
    }
  }
}
