import { userInfo } from 'node:os';
import type { ConnectProblem, PeopleStore, PersonRef } from '@ai-assistant/assistant';
import { type Logger, memoryOAuthStore, type ToolVectorCache } from '@ai-assistant/host-core';
import { type AuditEntry, openStoreFromEnvironment, type Store } from '@ai-assistant/store';

/** The terminal's person: the local workspace and the operating system's user. */
export const localPerson: PersonRef = { workspace: 'local', user: userInfo().username };

/** How a person connects a server in the terminal chat. */
export const connectCommand = (server: string) => `/connect ${server}`;

/** Why `/connect` or `/disconnect` cannot use `server`. */
export function connectProblem(server: string | undefined, problem: ConnectProblem | undefined): string {
  if (!server) return 'Usage: /connect <server> (or /disconnect <server>)';
  if (problem === 'unknown server') return `No server named ${server}. Try /servers.`;
  if (problem === 'not personal')
    return `${server} does not take a personal credential: everyone uses it as configured.`;
  if (problem === 'no oauth') return `${server} signs in with OAuth, which is not set up here.`;
  return 'Credentials cannot be stored here.';
}

/**
 * The terminal chat's side of the store that the Slack app uses too (DATA_DIR or DATABASE_URL), for
 * `People`: opened on first need, which is when a server takes a personal credential. The local
 * workspace has no admins: its servers follow the catalog's `enabled_by_default`.
 */
export class LocalStore implements PeopleStore {
  private store: Promise<Store> | undefined;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly logger: Logger,
  ) {}

  readonly credentials: PeopleStore['credentials'] = {
    of: async (workspace, user) => (await this.open()).credentials.of(workspace, user),
    list: async (workspace, user) => (await this.open()).credentials.list(workspace, user),
    put: async (workspace, user, server, secret) =>
      (await this.open()).credentials.put(workspace, user, server, secret),
    delete: async (workspace, user, server) =>
      (await this.open()).credentials.delete(workspace, user, server),
  };

  /** OAuth flows run in this process: their records and refresh claims stay in its memory. */
  readonly oauth = memoryOAuthStore();

  readonly workspaces: PeopleStore['workspaces'] = {
    settings: async () => new Map(),
    setEnabled: async () => {
      throw new Error('the terminal chat has no workspace admins: enable servers in the config file');
    },
  };

  /** The audit trail the bot keeps too (`pnpm audit-export` reads it): every tool call and connect. */
  readonly audit = async (entry: AuditEntry): Promise<void> => {
    await (await this.open()).audit.record(entry);
  };

  /** Tools' embedding vectors, shared with the bot's replicas when they use the same database. */
  readonly toolVectors: ToolVectorCache = {
    load: async (hashes) => (await this.open()).toolVectors.load(hashes),
    save: async (entries) => (await this.open()).toolVectors.save(entries),
  };

  async close(): Promise<void> {
    await (await this.store?.catch(() => undefined))?.close();
  }

  private open(): Promise<Store> {
    this.store ??= openStoreFromEnvironment(this.env, this.logger);
    return this.store;
  }
}
