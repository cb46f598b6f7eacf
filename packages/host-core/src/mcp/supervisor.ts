import type { Logger } from '@ai-assistant/chat-types';
import { type ConnectionContext, type McpConnection, openConnection, shutDown } from './connection.js';
import { visibleTools } from './tool-index.js';

/** When and how often a failed server is reconnected. */
export interface RestartPolicy {
  /** Wait before the first retry (default 1 000 ms); it doubles with each failure in the window. */
  initialDelayMs: number;
  /** The longest wait (default 60 000 ms). */
  maxDelayMs: number;
  /** Failures within `windowMs` after which the host gives up until the next start (default 10). */
  maxFailures: number;
  /** default 10 minutes */
  windowMs: number;
  /** Each wait is stretched by up to this fraction at random, so replicas don't retry in step (default 0.25). */
  jitter: number;
}

export const defaultRestartPolicy: RestartPolicy = {
  initialDelayMs: 1000,
  maxDelayMs: 60_000,
  maxFailures: 10,
  windowMs: 10 * 60_000,
  jitter: 0.25,
};

/** The wait before retry number `failures` (1 = the first failure). */
export function backoffDelay(policy: RestartPolicy, failures: number, random: () => number): number {
  const base = Math.min(policy.initialDelayMs * 2 ** Math.max(0, failures - 1), policy.maxDelayMs);
  return Math.round(base * (1 + policy.jitter * random()));
}

/**
 * Reconnects MCP servers that fail, under their `restart` policy: exponential backoff with jitter, and
 * giving up after `maxFailures` failures in `windowMs`. A server being waited on is `restarting`; one
 * given up on (or with `restart: "never"`) stays `failed`. `close()` stops every pending retry.
 */
export class Supervisor {
  private readonly failures = new Map<string, number[]>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly attempts = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly reopen: (connection: McpConnection) => Promise<void>,
    private readonly logger: Logger,
    private readonly policy: RestartPolicy,
    private readonly clock: { now: () => number; random: () => number } = {
      now: Date.now,
      random: Math.random,
    },
  ) {}

  /** A server failed (to start, or later): schedules its reconnection, or leaves it down. */
  failed(connection: McpConnection): void {
    const name = connection.config.name;
    if (this.closed || connection.state === 'closed') return;
    if (connection.config.restart === 'never') {
      connection.state = 'failed';
      return;
    }
    const now = this.clock.now();
    const recent = [...(this.failures.get(name) ?? []), now].filter((at) => now - at < this.policy.windowMs);
    this.failures.set(name, recent);
    if (recent.length >= this.policy.maxFailures) {
      connection.state = 'failed';
      connection.reason = `${connection.reason ?? 'failed'}; gave up after ${this.policy.maxFailures} failures in ${Math.round(this.policy.windowMs / 60_000)} minutes`;
      this.logger.error(
        { server: name, reason: connection.reason },
        'MCP server keeps failing; not restarting it',
      );
      return;
    }
    const delay = backoffDelay(this.policy, recent.length, this.clock.random);
    connection.state = 'restarting';
    this.logger.warn(
      { server: name, reason: connection.reason, retryInMs: delay, attempt: recent.length },
      'MCP server down; restarting it',
    );
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.closed) return;
      const attempt = this.reopen(connection).finally(() => this.attempts.delete(attempt));
      this.attempts.add(attempt);
    }, delay);
    timer.unref();
    this.timers.add(timer);
  }

  /** Stops every pending retry and waits for the ones under way. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.attempts]);
  }
}

/**
 * Reconnects a failed MCP server (the supervisor's retry): shut down what is left, open afresh, and
 * list its tools anew. A close that began meanwhile wins: the new connection is shut down at once.
 */
export async function reopenConnection(
  connection: McpConnection,
  context: ConnectionContext,
  closing: () => boolean,
): Promise<void> {
  if (closing()) return;
  const reason = connection.reason;
  await shutDown(connection, reason ?? 'restarting');
  Object.assign(connection, { state: 'connecting', pid: undefined, descendants: new Set(), stderrTail: [] });
  await openConnection(connection, context);
  if (closing()) {
    await shutDown(connection, 'closed by the host');
    return;
  }
  if (connection.state === 'connected') {
    connection.reason = undefined;
    context.logger.info(
      { server: connection.config.name, tools: visibleTools(connection).length, after: reason },
      'MCP server reconnected',
    );
  }
}
