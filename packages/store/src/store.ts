import type { Logger } from '@ai-assistant/chat-types';
import { type Kysely, sql } from 'kysely';
import { Approvals } from './approvals.js';
import { AuditTrail } from './audit.js';
import { Conversations } from './conversations.js';
import { Coordination } from './coordination.js';
import { Credentials } from './credentials.js';
import type { Engine } from './engines.js';
import type { Keyring } from './keyring.js';
import { LongTasks } from './long-tasks.js';
import { Schedules } from './schedules.js';
import type { Database } from './schema.js';
import { SealedRecords } from './sealed.js';
import { ToolCatalogs } from './tool-catalogs.js';
import { ToolVectors } from './tool-vectors.js';
import { UsageCounts } from './usage.js';
import { WorkspaceSettings } from './workspaces.js';

/** The sealed records' kind of a workspace's own server. */
const workspaceServerKind = 'workspace-server';

/** Each store's database, for this package's test helpers only (`@ai-assistant/store/testing`). */
const databases = new WeakMap<Store, Kysely<Database>>();

/** The database behind a store; never exported by the package's entry. */
export function databaseOf(store: Store): Kysely<Database> {
  const db = databases.get(store);
  if (!db) throw new Error('not a store opened by openStore');
  return db;
}

/**
 * The assistant's database, by concern: people's credentials, workspaces and their settings, apps'
 * sealed records, coordination across replicas (event claims, thread turns, pending approvals),
 * conversations. Open with `openStore`.
 */
export class Store {
  private closed = false;
  /** Each person's encrypted secret per server. */
  readonly credentials: Credentials;
  /** Workspaces, their organisation, and the servers their admins enabled. */
  readonly workspaces: WorkspaceSettings;
  /** Apps' encrypted records by kind and id (the chat app's installations). */
  readonly sealed: SealedRecords;
  /** Event claims and thread turns across replicas. */
  readonly coordination: Coordination;
  /** Requests waiting for a person's decision, any replica recording it. */
  readonly approvals: Approvals;
  /** Who ran which tool with what, who approved it, what came back; connects; admins' changes. */
  readonly audit: AuditTrail;
  /** Model tokens, tool calls and questions per person per day. */
  readonly usage: UsageCounts;
  /** The threads an app takes part in: people's messages and final answers, never tool steps. */
  readonly conversations: Conversations;
  /** Each shared MCP server's tool list, so a restart (or a replica) lists every tool at once. */
  readonly toolCatalogs: ToolCatalogs;
  /** Tools' embedding vectors by the hash of model and text, shared by replicas and restarts. */
  readonly toolVectors: ToolVectors;
  /** Questions people set to recur, and each occurrence's one run across replicas. */
  readonly schedules: Schedules;
  /** MCP tasks that outlived their turn, followed by one replica at a time. */
  readonly longTasks: LongTasks;
  /**
   * What MCP authorization keeps besides people's credentials: its flows and client registrations as
   * sealed records, and refresh claims (one replica refreshes a grant) as event claims, deleted
   * when the refresh is done.
   */
  readonly oauth: {
    record(kind: string, id: string): Promise<string | undefined>;
    saveRecord(kind: string, id: string, workspace: string | undefined, value: string): Promise<void>;
    deleteRecord(kind: string, id: string): Promise<boolean>;
    claim(id: string, workspace: string): Promise<boolean>;
    release(id: string): Promise<void>;
  };

  /**
   * The servers a workspace's admins added (remote MCP, OpenAPI), each kept encrypted whole (its
   * address, secret and document) under the workspace, and deleted with it.
   */
  readonly workspaceServers: {
    list(workspace: string): Promise<Array<{ name: string; value: string }>>;
    put(workspace: string, name: string, value: string): Promise<void>;
    delete(workspace: string, name: string): Promise<boolean>;
  };

  constructor(
    private readonly db: Kysely<Database>,
    readonly engine: Engine,
    keyring: Keyring,
    logger: Logger,
    /** The embedded key file, when the keys came from one. */
    readonly keyFile?: string,
    /** Gives back the embedded store's DATA_DIR lock once closed. */
    private readonly release: () => void = () => {},
  ) {
    databases.set(this, db);
    this.workspaces = new WorkspaceSettings(db);
    this.credentials = new Credentials(db, keyring, this.workspaces, logger);
    this.sealed = new SealedRecords(db, keyring);
    this.coordination = new Coordination(db, engine, logger);
    this.approvals = new Approvals(db, this.coordination);
    this.audit = new AuditTrail(db);
    this.usage = new UsageCounts(db);
    this.conversations = new Conversations(db);
    this.toolCatalogs = new ToolCatalogs(db);
    this.toolVectors = new ToolVectors(db);
    this.schedules = new Schedules(db, this.coordination);
    this.longTasks = new LongTasks(db, this.coordination);
    const serverId = (workspace: string, name: string) => `${workspace}/${name}`;
    this.workspaceServers = {
      list: async (workspace) =>
        (await this.sealed.list(workspaceServerKind, workspace)).map((record) => ({
          name: record.id.slice(workspace.length + 1),
          value: record.value,
        })),
      put: (workspace, name, value) =>
        this.workspaces
          .ensure(workspace)
          .then(() => this.sealed.put(workspaceServerKind, serverId(workspace, name), { workspace }, value)),
      delete: (workspace, name) => this.sealed.delete(workspaceServerKind, serverId(workspace, name)),
    };
    this.oauth = {
      record: (kind, id) => this.sealed.get(kind, id),
      saveRecord: (kind, id, workspace, value) =>
        this.sealed.put(kind, id, workspace ? { workspace } : {}, value),
      deleteRecord: (kind, id) => this.sealed.delete(kind, id),
      claim: (id, workspace) => this.coordination.claim({ id, workspace }),
      release: (id) => this.coordination.unclaim(id),
    };
  }

  /**
   * Re-encrypts every credential and sealed record not under the current key (the first configured);
   * returns how many. Each row is read and written on its own, so a crash leaves every row readable.
   */
  async reencryptAll(): Promise<number> {
    return (await this.credentials.reencrypt()) + (await this.sealed.reencrypt());
  }

  /** Throws when the database cannot be reached (for health checks). */
  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  /** Waits for background writes and closes the database. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.coordination.stop();
    await this.credentials.settle();
    try {
      await this.db.destroy();
    } finally {
      this.release();
    }
  }
}
