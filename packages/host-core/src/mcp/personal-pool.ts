import { createHash } from 'node:crypto';
import type { ServerConfig } from '../config/mcp-config.js';
import {
  type Connection,
  type ConnectionContext,
  newConnection,
  openConnection,
  shutDown,
} from './connection.js';

/** How long an unused per-person connection stays open (default 10 min), and how many stay (default 100). */
export interface PersonalPoolOptions {
  idleMs?: number;
  max?: number;
}

/** Who a per-person connection belongs to. */
export interface PersonKey {
  workspace: string;
  user: string;
}

interface Entry {
  key: string;
  fingerprint: string;
  connection: Connection;
  lastUsed: number;
  opening: Promise<void>;
}

const keyOf = (person: PersonKey, server: string) => `${person.workspace}\u0000${person.user}\u0000${server}`;
const fingerprintOf = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** A server's config with `${token}` filled with one person's secret, for a connection of their own. */
function configFor(config: ServerConfig, secret: string): ServerConfig {
  const fill = (values: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(values).map(([key, value]) => [
        key, // A function, so `$&`, `$$` … in a secret are taken as they are, not as replacement patterns.
        value.replaceAll('${token}', () => secret),
      ]),
    );
  if (config.transport === 'stdio') return { ...config, env: fill(config.env) };
  if (config.transport === 'http' || config.transport === 'sse')
    return { ...config, headers: fill(config.headers) };
  return config;
}

/**
 * Connections of `connection: "per_user"` servers, one per (workspace, user, server), opened with that
 * person's credential on first use. Least recently used beyond `max` and idle beyond `idleMs` are
 * closed (child processes reaped); so is one whose credential changed or was deleted.
 */
export class PersonalPool {
  private readonly entries = new Map<string, Entry>();
  private readonly idleMs: number;
  private readonly max: number;
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;
  private readonly shutting = new Set<Promise<void>>();

  constructor(
    private readonly context: ConnectionContext,
    options: PersonalPoolOptions = {},
  ) {
    this.idleMs = options.idleMs ?? 10 * 60_000;
    this.max = Math.max(1, options.max ?? 100);
    this.sweeper = setInterval(() => this.sweep(), Math.min(60_000, Math.max(50, this.idleMs / 2)));
    this.sweeper.unref();
  }

  /** How many connections are open or opening. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * The person's connection to `config`'s server, opened with `secret` if it is not open yet (or its
   * credential changed, or it failed). Never throws: a failure leaves the connection `failed` with a reason.
   */
  async get(config: ServerConfig, person: PersonKey, secret: string): Promise<Connection> {
    const key = keyOf(person, config.name);
    const fingerprint = fingerprintOf(secret);
    let entry = this.entries.get(key);
    if (entry && (entry.fingerprint !== fingerprint || entry.connection.state === 'failed')) {
      this.remove(
        entry,
        entry.fingerprint !== fingerprint ? 'credential changed' : 'reopening after a failure',
      );
      entry = undefined;
    }
    if (!entry) {
      if (this.closed) throw new Error('the host is closing');
      this.context.redactor.pin([secret]);
      const connection = newConnection(configFor(config, secret));
      entry = {
        key,
        fingerprint,
        connection,
        lastUsed: Date.now(),
        opening: openConnection(connection, this.context),
      };
      this.entries.set(key, entry);
      this.evict();
    } else {
      // Most recently used last: the Map's order is the eviction order.
      this.entries.delete(key);
      this.entries.set(key, entry);
      entry.lastUsed = Date.now();
    }
    await entry.opening;
    return entry.connection;
  }

  /** Closes the person's connection(s): every server's, or one. */
  forget(person: PersonKey, server?: string): void {
    for (const entry of [...this.entries.values()]) {
      const [workspace, user, name] = entry.key.split('\u0000');
      if (workspace === person.workspace && user === person.user && (server === undefined || name === server))
        this.remove(entry, 'credential removed');
    }
  }

  /** Closes every connection and reaps every child process. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all([...all.map((entry) => this.shut(entry, 'closed by the host')), ...this.shutting]);
  }

  private sweep(): void {
    const cutoff = Date.now() - this.idleMs;
    for (const entry of [...this.entries.values()]) if (entry.lastUsed < cutoff) this.remove(entry, 'idle');
  }

  private evict(): void {
    while (this.entries.size > this.max) {
      const oldest = this.entries.values().next().value as Entry;
      this.remove(oldest, 'least recently used');
    }
  }

  private remove(entry: Entry, reason: string): void {
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
    const shutting = this.shut(entry, reason).finally(() => this.shutting.delete(shutting));
    this.shutting.add(shutting);
  }

  private async shut(entry: Entry, reason: string): Promise<void> {
    // An opening connection is shut once it has opened (or failed), so no child is left behind.
    await entry.opening.catch(() => {});
    await shutDown(entry.connection, reason);
  }
}
