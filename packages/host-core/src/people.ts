import type { Logger } from './logger.js';
import { silentLogger } from './logger.js';
import type { ConversationSource } from './mcp/conversation-tools.js';
import type { ServerStatus } from './mcp/manager-types.js';
import { type StartMcpOptions, startMcpFromEnvironment } from './mcp/start-mcp.js';
import type { McpHost, McpView } from './mcp-host.js';
import { AuthorizationError } from './oauth/authorization-error.js';
import { type OAuthRecords, oauthStoreOver } from './oauth/oauth-store.js';

/** Who: a person of a workspace (Slack's team and user ids, or the terminal's local ones). */
export interface PersonRef {
  workspace: string;
  user: string;
}

/**
 * What {@link People} needs of a store: each person's credentials and each workspace's server
 * settings. `@ai-assistant/store`'s `Store` is one; a test can be another.
 */
export interface PeopleStore {
  /** Where OAuth flows, client registrations and refresh claims are kept (default: this process's memory). */
  oauth?: OAuthRecords;
  credentials: {
    /** Every secret of one person, by server, decrypted for one turn. */
    of(workspace: string, user: string): Promise<{ secrets: Record<string, string> }>;
    /** The servers a person has a credential for (never the secrets), and since when. */
    list(workspace: string, user: string): Promise<Array<{ server: string; updatedAt?: Date }>>;
    put(workspace: string, user: string, server: string, secret: string): Promise<void>;
    /** Whether there was one. */
    delete(workspace: string, user: string, server: string): Promise<boolean>;
  };
  workspaces: {
    /** The servers a workspace's admins enabled (true) or disabled (false). */
    settings(workspace: string): Promise<Map<string, boolean>>;
    setEnabled(workspace: string, server: string, enabled: boolean, by: string): Promise<void>;
  };
}

/** A catalog server as one person of one workspace sees it. */
export interface WorkspaceServer extends ServerStatus {
  /** Whether the workspace has it (the admins' choice, else `enabled_by_default`). */
  enabled: boolean;
  /** Whether this person has stored their own credential for it. */
  connected: boolean;
  /** Since when (their credential's last change), where the store knows. */
  connectedSince?: Date;
}

/** Why a server cannot take a person's credential. */
export type ConnectProblem = 'unknown server' | 'not personal' | 'no store' | 'no oauth';

/** A change people or admins made, for the audit trail. */
export interface PeopleAuditEntry {
  kind: 'connect' | 'disconnect' | 'admin';
  at: Date;
  workspace: string;
  person: string;
  server: string;
  detail?: string;
}

/** Options of {@link People}. */
export interface PeopleOptions {
  logger?: Logger;
  /** Each connect, disconnect and admin change is recorded here (never a secret). */
  audit?: (entry: PeopleAuditEntry) => Promise<void> | void;
  now?: () => Date;
  /** How a person connects a server in this app, for the model to tell them (e.g. "/connect github"). */
  connectHint?: (server: string) => string;
}

/**
 * The one way the apps reach MCP: each person's view (their workspace's servers, their own
 * credentials), the workspace's server list with who is connected, and the changes people and admins
 * make, each closing the connections it makes stale at once. The apps hold a `People`, never the
 * shared host. Without a store everyone has the catalog's defaults and no credentials; without MCP
 * (`MCP_ENABLED` off) there are no views.
 */
export class People {
  private readonly logger: Logger;

  constructor(
    private readonly host: McpHost | undefined,
    private readonly store: PeopleStore | undefined,
    private readonly options: PeopleOptions = {},
  ) {
    this.logger = options.logger ?? silentLogger;
  }

  /** Whether MCP is on (some config was loaded). */
  get mcpEnabled(): boolean {
    return this.host !== undefined;
  }

  /** Whether credentials can be stored. */
  get hasStore(): boolean {
    return this.store !== undefined;
  }

  /**
   * The person's view of MCP for one turn, slash command or pane: their workspace's enabled servers,
   * their own credentials and connections. Undefined when MCP is off. `conversations`: what the app
   * recorded of this person's conversations in the workspace, which the view then offers (the host's
   * conversation tool, summary prompt and counts resource).
   */
  async viewFor(
    person: PersonRef,
    turn: { conversations?: ConversationSource } = {},
  ): Promise<McpView | undefined> {
    if (!this.host) return undefined;
    const personal = this.catalog().some((server) => server.personalCredential);
    const [credentials, settings] = await Promise.all([
      personal && person.user && this.store
        ? this.store.credentials.of(person.workspace, person.user)
        : { secrets: {} },
      this.settings(person.workspace),
    ]);
    return this.host.forPerson({
      ...person,
      credentials: credentials.secrets,
      settings,
      ...(this.options.connectHint ? { connectHint: this.options.connectHint } : {}),
      ...(turn.conversations ? { conversations: turn.conversations } : {}),
    });
  }

  /** Every configured server as the operator sees it (state, tools, why it failed): /healthz, checks. */
  catalog(): ServerStatus[] {
    return this.host?.status() ?? [];
  }

  /** The original names of a configured server's listed tools (for a config check). */
  toolsOf(server: string): string[] {
    const host = this.host;
    if (!host) return [];
    return host
      .listTools()
      .map((tool) => host.resolveTool(tool.name))
      .filter((resolved) => resolved?.server === server)
      .map((resolved) => resolved?.tool as string);
  }

  /** Every catalog server as `person` sees it: whether the workspace has it and they connected it. */
  async servers(person: PersonRef): Promise<WorkspaceServer[]> {
    const [settings, mine] = await Promise.all([
      this.settings(person.workspace),
      this.connectedServers(person),
    ]);
    return this.catalog().map((server) => {
      const since = mine.get(server.name);
      return {
        ...server,
        enabled: settings.get(server.name) ?? server.enabledByDefault,
        connected: mine.has(server.name),
        ...(since ? { connectedSince: since } : {}),
      };
    });
  }

  /** A configured server that takes a person's own credential, or why it cannot. */
  personalServer(name: string): ServerStatus | ConnectProblem {
    const server = this.catalog().find((entry) => entry.name === name);
    if (!server) return 'unknown server';
    if (!server.personalCredential) return 'not personal';
    if (!this.store) return 'no store';
    if (server.oauth && !this.host?.oauth) return 'no oauth';
    return server;
  }

  /**
   * Starts connecting a person to an OAuth server: the URL they open (the authorization server), valid
   * 10 minutes. Throws `AuthorizationError` naming the step that failed.
   */
  async beginConnect(person: PersonRef, server: string): Promise<{ url: string; expiresAt: Date }> {
    const { oauth, config } = this.oauthOf(server);
    return oauth.begin(person, config);
  }

  /**
   * Completes an OAuth connection from the redirect back to the app (its full URL): the state is
   * checked, the code exchanged, the tokens stored as the person's credential; their connection to the
   * server opens with them on their next turn. Returns whose it was.
   */
  async completeConnect(callback: string | URL): Promise<PersonRef & { server: string }> {
    const oauth = this.host?.oauth;
    if (!oauth) throw new AuthorizationError(undefined, 'redirect', 'OAuth is not set up on this host');
    const done = await oauth.complete(callback, (server) => this.host?.remoteConfig(server));
    this.host?.forgetCredential(done, done.server);
    await this.record({
      kind: 'connect',
      workspace: done.workspace,
      person: done.user,
      server: done.server,
      detail: 'OAuth',
    });
    this.logger.info({ ...done }, 'OAuth server connected');
    return done;
  }

  /** The client ID metadata document the app serves (OAuth), when OAuth is set up. */
  clientMetadataDocument(): Record<string, unknown> | undefined {
    return this.host?.oauth?.clientMetadataDocument();
  }

  private oauthOf(server: string) {
    const config = this.host?.remoteConfig(server);
    if (config?.oauth?.grant !== 'authorization_code')
      throw new AuthorizationError(server, 'start', 'this server is not connected with OAuth');
    const oauth = this.host?.oauth;
    if (!oauth || !this.store)
      throw new AuthorizationError(
        server,
        'start',
        'OAuth is not set up on this host: it needs a store and the public URL people are sent back to',
      );
    return { oauth, config };
  }

  /** Stores a person's secret for a server; their own connections to it close and reopen with it. */
  async connect(person: PersonRef, server: string, secret: string): Promise<void> {
    if (!this.store) throw new Error('credentials cannot be stored: there is no store');
    await this.store.credentials.put(person.workspace, person.user, server, secret);
    this.host?.forgetCredential(person, server);
    await this.record({ kind: 'connect', workspace: person.workspace, person: person.user, server });
    this.logger.info({ ...person, server }, 'credential connected');
  }

  /** Deletes a person's secret for a server (their connections to it close now); whether there was one. */
  async disconnect(person: PersonRef, server: string): Promise<boolean> {
    const oauth = this.host?.remoteConfig(server)?.oauth ? this.host.oauth : undefined;
    // An OAuth connection's tokens are revoked at the authorization server first.
    const deleted = oauth
      ? await oauth.disconnect(person, server)
      : ((await this.store?.credentials.delete(person.workspace, person.user, server)) ?? false);
    this.host?.forgetCredential(person, server);
    if (deleted) {
      this.logger.info({ ...person, server }, 'credential disconnected');
      await this.record({ kind: 'disconnect', workspace: person.workspace, person: person.user, server });
    }
    return deleted;
  }

  /** An admin enables or disables a server for the workspace; disabled, its per-person connections close. */
  async setEnabled(workspace: string, server: string, enabled: boolean, by: string): Promise<void> {
    if (!this.store) throw new Error('workspace settings cannot be stored: there is no store');
    await this.store.workspaces.setEnabled(workspace, server, enabled, by);
    if (!enabled) this.host?.forgetWorkspace(workspace, server);
    this.logger.info({ workspace, server, enabled, by }, 'workspace server setting changed');
    await this.record({
      kind: 'admin',
      workspace,
      person: by,
      server,
      detail: `${enabled ? 'enabled' : 'disabled'} ${server}`,
    });
  }

  /** Workspaces were uninstalled (their data deleted): every per-person connection of theirs closes now. */
  forgetWorkspaces(workspaces: Iterable<string>): void {
    for (const workspace of workspaces) this.host?.forgetWorkspace(workspace);
  }

  /** Records a change in the audit trail; a failure is logged, never thrown at the person. */
  private async record(entry: Omit<PeopleAuditEntry, 'at'>): Promise<void> {
    if (!this.options.audit) return;
    try {
      await this.options.audit({ ...entry, at: (this.options.now ?? (() => new Date()))() });
    } catch (error) {
      this.logger.warn({ server: entry.server, error: String(error) }, 'audit entry not recorded');
    }
  }

  /** Ends every MCP connection and child process. */
  async close(): Promise<void> {
    await this.host?.close();
  }

  private async settings(workspace: string): Promise<Map<string, boolean>> {
    return (await this.store?.workspaces.settings(workspace)) ?? new Map();
  }

  private async connectedServers(person: PersonRef): Promise<Map<string, Date | undefined>> {
    const personal = this.catalog().some((server) => server.personalCredential);
    if (!personal || !this.store || !person.user) return new Map();
    return new Map(
      (await this.store.credentials.list(person.workspace, person.user)).map((entry) => [
        entry.server,
        entry.updatedAt,
      ]),
    );
  }
}

/** Options of {@link startPeople}: MCP's (see `startMcpFromEnvironment`), the store and the app's hint. */
export interface StartPeopleOptions extends Omit<StartMcpOptions, 'oauth'>, PeopleOptions {
  store?: PeopleStore;
  /** MCP authorization: the exact redirect URI (the app's callback) and, optionally, its client metadata URL. */
  oauth?: Omit<NonNullable<StartMcpOptions['oauth']>, 'store'>;
}

/**
 * What an app does at start-up: connects the configured MCP servers (when `MCP_ENABLED`) and returns
 * the {@link People} over them and the store. Throws what `startMcpFromEnvironment` throws.
 */
export async function startPeople(options: StartPeopleOptions = {}): Promise<People> {
  const { store, connectHint, oauth, audit, ...mcp } = options;
  const host = await startMcpFromEnvironment({
    ...mcp,
    // Grants are people's credentials; flows, registrations and refresh claims the store's records.
    ...(oauth && store ? { oauth: { ...oauth, store: oauthStoreOver(store.credentials, store.oauth) } } : {}),
  });
  return new People(host, store, {
    ...(options.logger ? { logger: options.logger } : {}),
    ...(connectHint ? { connectHint } : {}),
    ...(audit ? { audit } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
}
