import { sha256Of } from '../builtins.js';
import type { ServerConfig } from '../config/mcp-config.js';
import { credentialIdentity } from '../oauth/grant.js';
import {
  type Connection,
  type ConnectionContext,
  newConnection,
  openConnection,
  shutDown,
} from './connection.js';

/**
 * Limits of the per-person pool: how long an unused connection stays open (default 10 min), how many
 * stay open in all (default 100) and per workspace (default 20).
 */
export interface PersonalPoolOptions {
  idleMs?: number;
  max?: number;
  maxPerWorkspace?: number;
}

/** Who a per-person connection belongs to. */
export interface PersonKey {
  workspace: string;
  user: string;
}

interface Entry {
  key: string;
  workspace: string;
  fingerprint: string;
  connection: Connection;
  /** When it was last handed out or last finished a call (the pool's clock). */
  lastUsed: number;
  /** Calls running on it now: a busy connection is never closed for idleness or room. */
  busy: number;
  settled: boolean;
  opening: Promise<void>;
}

const keyOf = (person: PersonKey, server: string) => `${person.workspace}\u0000${person.user}\u0000${server}`;
// An OAuth grant's tokens change at each refresh; its id does not, so the connection stays open.
const fingerprintOf = (secret: string) => sha256Of(credentialIdentity(secret), 'hex');

/**
 * A server's config with `${token}` filled with one person's secret, for a connection of their own;
 * an OAuth server's names whose tokens it uses (the host's OAuth service keeps them fresh).
 */
export function configFor(config: ServerConfig, secret: string, person: PersonKey): ServerConfig {
  if (!config.personalCredential) return config; // a workspace's own server: nobody's credential
  if ((config.transport === 'http' || config.transport === 'sse') && config.oauth)
    return { ...config, oauthPerson: { workspace: person.workspace, user: person.user } };
  const fill = (values: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(values).map(([key, value]) => [
        key, // A function, so `$&`, `$$` … in a secret are taken as they are, not as replacement patterns.
        value.replaceAll('${token}', () => secret),
      ]),
    );
  if (config.transport === 'stdio') return { ...config, env: fill(config.env), personalSecret: secret };
  if (config.transport === 'http' || config.transport === 'sse')
    return { ...config, headers: fill(config.headers), personalSecret: secret };
  return config;
}

/**
 * Connections of `connection: "per_user"` servers, one per (workspace, user, server), opened with that
 * person's credential on first use. Least recently used beyond the caps and idle beyond `idleMs` are
 * closed (child processes reaped), never while opening or while a call runs on them; so is one whose
 * credential changed or was deleted. When every connection is busy, a newcomer is refused rather than
 * let the pool grow past its caps. Time is the context's clock, so tests control idleness.
 */
export class PersonalPool {
  private readonly entries = new Map<string, Entry>();
  private readonly idleMs: number;
  private readonly max: number;
  private readonly maxPerWorkspace: number;
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;
  private readonly shutting = new Set<Promise<void>>();

  constructor(
    private readonly context: ConnectionContext,
    options: PersonalPoolOptions = {},
  ) {
    this.idleMs = options.idleMs ?? 10 * 60_000;
    this.max = Math.max(1, options.max ?? 100);
    this.maxPerWorkspace = Math.max(1, Math.min(this.max, options.maxPerWorkspace ?? 20));
    this.sweeper = setInterval(() => this.sweep(), Math.min(60_000, Math.max(50, this.idleMs / 2)));
    this.sweeper.unref();
  }

  /** The person's connection to `server` if it is open (or opening), without opening it. */
  find(person: PersonKey, server: string): Connection | undefined {
    return this.entries.get(keyOf(person, server))?.connection;
  }

  /** How many connections are open or opening. */
  get size(): number {
    return this.entries.size;
  }

  private now(): number {
    return this.context.now().getTime();
  }

  /**
   * The person's connection to `config`'s server, opened with `secret` if it is not open yet (or its
   * credential changed, or it failed). Never throws: a failure (or a full pool) leaves the connection
   * `failed` with a reason. `identity`: what, when it changes, reopens the connection (default the
   * secret; a workspace's shared server passes its settings).
   */
  async get(config: ServerConfig, person: PersonKey, secret: string, identity = secret): Promise<Connection> {
    const key = keyOf(person, config.name);
    const fingerprint = fingerprintOf(identity);
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
      const full = this.makeRoom(person.workspace);
      if (full) return refused(config, full);
      // Hidden in the logs; in output only in this person's own turns (their view passes it).
      this.context.redactor.add([secret]);
      const connection = newConnection(configFor(config, secret, person));
      const created: Entry = {
        key,
        workspace: person.workspace,
        fingerprint,
        connection,
        lastUsed: this.now(),
        busy: 0,
        settled: false,
        opening: openConnection(connection, this.context).finally(() => {
          // The idle clock starts once it is open, however long opening took.
          created.settled = true;
          created.lastUsed = this.now();
        }),
      };
      entry = created;
      this.entries.set(key, entry);
    } else {
      // Most recently used last: the Map's order is the eviction order.
      this.entries.delete(key);
      this.entries.set(key, entry);
      entry.lastUsed = this.now();
    }
    await entry.opening;
    return entry.connection;
  }

  /** Runs `work` on one of the pool's connections, which stays open (and counts as used) meanwhile. */
  async use<T>(connection: Connection, work: () => Promise<T>): Promise<T> {
    let entry: Entry | undefined;
    for (const candidate of this.entries.values())
      if (candidate.connection === connection) {
        entry = candidate;
        break;
      }
    if (!entry) return work();
    entry.busy += 1;
    try {
      return await work();
    } finally {
      entry.busy -= 1;
      entry.lastUsed = this.now();
    }
  }

  /** The person's own connections to those of `configs` they have a credential for, opened when not open. */
  openFor(
    person: PersonKey & { credentials: Readonly<Record<string, string>> },
    configs: ServerConfig[],
  ): Promise<Connection[]> {
    const theirs = configs.filter((config) => person.credentials[config.name] !== undefined);
    return Promise.all(
      theirs.map((config) => this.get(config, person, person.credentials[config.name] as string)),
    );
  }

  /** Closes the person's connection(s): every server's, or one. */
  forget(person: PersonKey, server?: string): void {
    for (const entry of [...this.entries.values()]) {
      const [workspace, user, name] = entry.key.split('\u0000');
      if (workspace === person.workspace && user === person.user && (server === undefined || name === server))
        this.remove(entry, 'credential removed');
    }
  }

  /** Closes every connection of a workspace (it was uninstalled), or only those to `server` (disabled). */
  forgetWorkspace(workspace: string, server?: string): void {
    for (const entry of [...this.entries.values()])
      if (entry.workspace === workspace && (server === undefined || entry.key.endsWith(`\u0000${server}`)))
        this.remove(entry, server ? 'server disabled in the workspace' : 'workspace removed');
  }

  /** Closes every connection idle for longer than `idleMs` now (also run on a timer). */
  sweep(): void {
    const cutoff = this.now() - this.idleMs;
    for (const entry of [...this.entries.values()])
      if (this.idle(entry) && entry.lastUsed < cutoff) this.remove(entry, 'idle');
  }

  /** Closes every connection and reaps every child process. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all([...all.map((entry) => this.shut(entry, 'closed by the host')), ...this.shutting]);
  }

  private idle(entry: Entry): boolean {
    return entry.settled && entry.busy === 0;
  }

  /**
   * Closes least recently used idle connections until one more fits under both caps. Returns why it
   * cannot when every candidate is opening or running a call.
   */
  private makeRoom(workspace: string): string | undefined {
    const inWorkspace = () => [...this.entries.values()].filter((entry) => entry.workspace === workspace);
    while (inWorkspace().length >= this.maxPerWorkspace) {
      const oldest = inWorkspace().find((entry) => this.idle(entry));
      if (!oldest)
        return `this workspace already has ${this.maxPerWorkspace} per-person connections in use; try again in a moment`;
      this.remove(oldest, 'least recently used in its workspace');
    }
    while (this.entries.size >= this.max) {
      const oldest = [...this.entries.values()].find((entry) => this.idle(entry));
      if (!oldest) return `all ${this.max} per-person connections are in use; try again in a moment`;
      this.remove(oldest, 'least recently used');
    }
    return undefined;
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

/** A connection that was never opened because the pool is full of busy connections. */
function refused(config: ServerConfig, reason: string): Connection {
  const connection = newConnection(config);
  connection.state = 'failed';
  connection.reason = reason;
  return connection;
}
