import type { Logger } from '@ai-assistant/chat-types';
import { silentLogger } from '@ai-assistant/chat-types';
import {
  AddressAllowlist,
  AuthorizationError,
  type McpHost,
  type McpView,
  type ServerStatus,
} from '@ai-assistant/host-core';
import { type ConversationSource, conversationAdditions } from './conversation-tools.js';
import {
  type ApprovalChoice,
  ConnectRefused,
  type PeopleAuditEntry,
  type PeopleOptions,
  type PeopleStore,
  type PersonRef,
  type WorkspaceServer,
} from './people-types.js';
import { combineAdditions, type ScheduleProposer, scheduleAdditions } from './schedules/schedule-tool.js';
import type { UsageLimits } from './usage.js';
import { statusOfSpec, WorkspaceAdmin } from './workspace-admin.js';

/**
 * The one way the apps reach MCP: each person's view (their workspace's servers, their own
 * credentials), the workspace's server list with who is connected, and the changes people and admins
 * make, each closing the connections it makes stale at once. The apps hold a `People`, never the
 * shared host. Without a store everyone has the catalog's defaults and no credentials; without MCP
 * (`MCP_ENABLED` off) there are no views.
 */
export class People {
  private readonly logger: Logger;
  private readonly admin: WorkspaceAdmin;

  constructor(
    private readonly host: McpHost | undefined,
    private readonly store: PeopleStore | undefined,
    private readonly options: PeopleOptions = {},
  ) {
    this.logger = options.logger ?? silentLogger;
    this.admin = new WorkspaceAdmin(host, store, {
      logger: this.logger,
      allow: AddressAllowlist.parse(options.workspaceServersAllow),
      now: () => this.now(),
      record: (entry) => this.record(entry),
      ceiling: options.usageLimits ?? {},
    });
  }

  /** Whether MCP is on (some config was loaded). */
  get mcpEnabled(): boolean {
    return this.host !== undefined;
  }

  /** Whether credentials can be stored. */
  get hasStore(): boolean {
    return this.store !== undefined;
  }

  /** Whether a person can sign in to a server with OAuth here (the app's redirect URL and a store). */
  get oauthReady(): boolean {
    return this.store !== undefined && this.host?.oauth !== undefined;
  }

  /**
   * The person's view of MCP for one turn, slash command or pane: their workspace's enabled servers,
   * their own credentials and connections. Undefined when MCP is off. `conversations`: what the app
   * recorded of this person's conversations in the workspace, which the view then offers (the host's
   * conversation tool, summary prompt and counts resource). `schedules`: where the asker's schedule
   * proposals go (the view then offers `host__propose_schedule`).
   */
  async viewFor(
    person: PersonRef,
    turn: { conversations?: ConversationSource; schedules?: ScheduleProposer } = {},
  ): Promise<McpView | undefined> {
    if (!this.host) return undefined;
    const store = person.user ? this.store : undefined;
    const ownCredentials = () => store?.credentials.of(person.workspace, person.user) ?? { secrets: {} };
    // One round trip when the catalog has per-person servers; the workspace's own may need a second.
    const catalogPersonal = this.catalog().some((server) => server.personalCredential);
    const [added, policies, early] = await Promise.all([
      this.admin.added(person.workspace),
      this.policies(person.workspace),
      catalogPersonal ? ownCredentials() : undefined,
    ]);
    const credentials =
      early ??
      (added.some((spec) => statusOfSpec(spec).personalCredential)
        ? await ownCredentials()
        : { secrets: {} });
    const workspaceServers = this.admin.configsOf(person.workspace, added);
    const additions = combineAdditions([
      ...(turn.conversations ? [conversationAdditions(turn.conversations)] : []),
      ...(turn.schedules ? [scheduleAdditions(turn.schedules)] : []),
    ]);
    return this.host.forPerson({
      ...person,
      credentials: credentials.secrets,
      settings: policies.enabled,
      ...(policies.approvals.size > 0 ? { approvals: policies.approvals } : {}),
      ...(workspaceServers.length > 0 ? { workspaceServers } : {}),
      ...(this.options.connectHint ? { connectHint: this.options.connectHint } : {}),
      ...(additions ? { additions } : {}),
      ...(this.options.appSettings ? { appSettings: () => this.settingsOf(person.workspace) } : {}),
    });
  }

  /** What `host://settings` shows of the app and the workspace: the app's settings and the budgets that apply. */
  private async settingsOf(workspace: string): Promise<Record<string, unknown>> {
    const ceiling = this.limitCeiling();
    const own = await this.limits(workspace);
    return { ...this.options.appSettings?.(), budgets: { operator: ceiling, workspace: own } };
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
    const [policies, mine, added] = await Promise.all([
      this.policies(person.workspace),
      this.connectedServers(person),
      this.admin.added(person.workspace),
    ]);
    const catalog = this.catalog().map((server) => ({
      ...server,
      enabled: policies.enabled.get(server.name) ?? server.enabledByDefault,
    }));
    const own = added.map((spec) => ({
      ...statusOfSpec(spec),
      enabled: policies.enabled.get(spec.name) ?? true,
      added: { by: spec.addedBy, at: spec.addedAt, kind: spec.kind, url: spec.url, auth: spec.auth },
    }));
    return [...catalog, ...own].map((server) => {
      const since = mine.get(server.name);
      const choice = policies.approvals.get(server.name);
      return {
        ...this.live(server, person, mine.has(server.name)),
        connected: mine.has(server.name),
        ...(since ? { connectedSince: since } : {}),
        ...(choice ? { approvalChoice: choice } : {}),
      };
    });
  }

  /**
   * A server as the connection `person` gets stands now: a workspace's own shared one, or their own
   * to a per-person server they connected (failed, with why, when it could not open); as configured
   * (or as its Test found it) when none is open.
   */
  private live<T extends ServerStatus>(server: T, person: PersonRef, connected: boolean): T {
    const own = server.state === 'per_user' && connected;
    const user = server.state === 'idle' ? '' : own ? person.user : undefined;
    const now = user !== undefined && this.host?.connectionStatus({ ...person, user }, server.name);
    if (!now) return server;
    const { reason: _, protocolVersion: __, ...rest } = server;
    const { state, toolCount, reason, protocolVersion } = now;
    return {
      ...rest,
      state,
      toolCount,
      ...(reason ? { reason } : {}),
      ...(protocolVersion ? { protocolVersion } : {}),
    } as T;
  }

  /** A configured server that takes a person's own credential, or why it cannot. */
  personalServer(name: string, workspace?: string): ServerStatus | ConnectRefused {
    const added = workspace
      ? this.admin.lately.get(workspace)?.find((spec) => spec.name === name)
      : undefined;
    const server: ServerStatus | undefined =
      this.catalog().find((entry) => entry.name === name) ?? (added ? statusOfSpec(added) : undefined);
    if (!server) return new ConnectRefused(name, 'unknown server');
    if (!server.personalCredential) return new ConnectRefused(name, 'not personal');
    if (!this.store) return new ConnectRefused(name, 'no store');
    if (server.oauth && !this.host?.oauth) return new ConnectRefused(name, 'no oauth');
    return server;
  }

  /** {@link personalServer}, with the workspace's own servers read afresh from the store. */
  async personalServerIn(workspace: string, name: string): Promise<ServerStatus | ConnectRefused> {
    await this.admin.added(workspace);
    return this.personalServer(name, workspace);
  }

  /**
   * Starts connecting a person to an OAuth server: the URL they open (the authorization server), valid
   * 10 minutes. Throws `AuthorizationError` naming the step that failed.
   */
  async beginConnect(person: PersonRef, server: string): Promise<{ url: string; expiresAt: Date }> {
    const { oauth, config } = await this.oauthOf(server, person.workspace);
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
    const done = await oauth.complete(callback, (server, workspace) =>
      this.admin.remoteConfig(workspace, server),
    );
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

  /**
   * The client ID metadata document the app serves (OAuth), when OAuth is set up: with `{as}` in
   * `clientMetadataUrl`, the one of the authorization server whose id `server` is.
   */
  clientMetadataDocument(server?: string): Record<string, unknown> | undefined {
    return this.host?.oauth?.clientMetadataDocument(server);
  }

  private async oauthOf(server: string, workspace: string) {
    const config = await this.admin.remoteConfig(workspace, server);
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
    const config = await this.admin.remoteConfig(person.workspace, server);
    const oauth = config?.oauth ? this.host?.oauth : undefined;
    // An OAuth connection's tokens are revoked at the authorization server first.
    const deleted = oauth
      ? await oauth.disconnect(person, server, config)
      : ((await this.store?.credentials.delete(person.workspace, person.user, server)) ?? false);
    this.host?.forgetCredential(person, server);
    if (deleted) {
      this.logger.info({ ...person, server }, 'credential disconnected');
      await this.record({ kind: 'disconnect', workspace: person.workspace, person: person.user, server });
    }
    return deleted;
  }

  // What a workspace's admins change (servers they add, approvals, budgets): see WorkspaceAdmin.
  readonly testServer: WorkspaceAdmin['testServer'] = (...args) => this.admin.testServer(...args);
  readonly addServer: WorkspaceAdmin['addServer'] = (...args) => this.admin.addServer(...args);
  readonly removeServer: WorkspaceAdmin['removeServer'] = (...args) => this.admin.removeServer(...args);
  readonly setApproval: WorkspaceAdmin['setApproval'] = (...args) => this.admin.setApproval(...args);
  readonly limits: WorkspaceAdmin['limits'] = (...args) => this.admin.limits(...args);
  /** The operator's budgets: the most a workspace's admins may set (see {@link setLimits}). */
  readonly limitCeiling = (): UsageLimits => ({ ...this.options.usageLimits });
  readonly setLimits: WorkspaceAdmin['setLimits'] = (...args) => this.admin.setLimits(...args);
  readonly setEnabled: WorkspaceAdmin['setEnabled'] = (...args) => this.admin.setEnabled(...args);

  /** Workspaces were uninstalled (their data deleted): every per-person connection of theirs closes now. */
  forgetWorkspaces(workspaces: Iterable<string>): void {
    for (const workspace of workspaces) this.host?.forgetWorkspace(workspace);
  }

  /** Records a change in the audit trail; a failure is logged, never thrown at the person. */
  private async record(entry: Omit<PeopleAuditEntry, 'at'>): Promise<void> {
    if (!this.options.audit) return;
    try {
      await this.options.audit({ ...entry, at: this.now() });
    } catch (error) {
      this.logger.warn({ server: entry.server, error: String(error) }, 'audit entry not recorded');
    }
  }

  /** Ends every MCP connection and child process. */
  async close(): Promise<void> {
    await this.host?.close();
  }

  private now(): Date {
    return (this.options.now ?? (() => new Date()))();
  }

  private async policies(
    workspace: string,
  ): Promise<{ enabled: Map<string, boolean>; approvals: Map<string, ApprovalChoice> }> {
    const workspaces = this.store?.workspaces;
    if (workspaces?.policies) return workspaces.policies(workspace);
    return { enabled: (await workspaces?.settings(workspace)) ?? new Map(), approvals: new Map() };
  }

  private async connectedServers(person: PersonRef): Promise<Map<string, Date | undefined>> {
    if (!this.store || !person.user) return new Map();
    return new Map(
      (await this.store.credentials.list(person.workspace, person.user)).map((entry) => [
        entry.server,
        entry.updatedAt,
      ]),
    );
  }
}
