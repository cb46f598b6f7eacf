import type { RemoteServerConfig, ServerConfig } from './config/server-types.js';
import type { Logger } from './logger.js';
import { silentLogger } from './logger.js';
import type { ConversationSource } from './mcp/conversation-tools.js';
import type { ServerStatus } from './mcp/manager-types.js';
import { type StartMcpOptions, startMcpFromEnvironment } from './mcp/start-mcp.js';
import type { McpHost, McpView } from './mcp-host.js';
import { AddressAllowlist } from './net/address-guard.js';
import { AuthorizationError } from './oauth/authorization-error.js';
import { type OAuthRecords, oauthStoreOver } from './oauth/oauth-store.js';
import type { UsageLimits } from './usage.js';
import {
  checkWorkspaceServer,
  fetchWorkspaceDocument,
  WorkspaceServerError,
  type WorkspaceServerSpec,
  workspaceServerConfig,
} from './workspace-servers.js';

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
    /** In one read: servers enabled or disabled, and the admins' approval policy per server. */
    policies?(
      workspace: string,
    ): Promise<{ enabled: Map<string, boolean>; approvals: Map<string, ApprovalChoice> }>;
    setApproval?(
      workspace: string,
      server: string,
      approval: ApprovalChoice | null,
      by: string,
    ): Promise<void>;
    forgetServer?(workspace: string, server: string): Promise<void>;
    limits?(workspace: string): Promise<Record<string, number> | undefined>;
    setLimits?(workspace: string, limits: Record<string, number>): Promise<void>;
  };
  /** The servers workspaces added, each a JSON {@link WorkspaceServerSpec} kept encrypted. */
  workspaceServers?: {
    list(workspace: string): Promise<Array<{ name: string; value: string }>>;
    put(workspace: string, name: string, value: string): Promise<void>;
    delete(workspace: string, name: string): Promise<boolean>;
  };
}

/** Budgets as saved: whole numbers above 0 of the known names only; undefined when none was saved. */
export function workspaceLimitsOf(saved: Record<string, unknown> | undefined): UsageLimits | undefined {
  if (!saved) return undefined;
  return Object.fromEntries(
    workspaceLimitNames
      .filter((name) => Number.isInteger(saved[name]) && (saved[name] as number) > 0)
      .map((name) => [name, saved[name] as number]),
  );
}

/**
 * How a workspace's server shows among the catalog's: its state is what its Test found when added
 * (a server that takes each person's credential connects per person).
 */
function statusOfSpec(spec: WorkspaceServerSpec): ServerStatus {
  const personal = spec.auth === 'person' || spec.auth === 'oauth';
  return {
    name: spec.name,
    transport: spec.kind === 'openapi' ? 'openapi' : 'http',
    state: personal ? 'per_user' : 'connected',
    toolCount: spec.tools?.length ?? 0,
    approval: spec.approval ?? 'writes',
    personalCredential: personal,
    ...(spec.auth === 'oauth' ? { oauth: true } : {}),
    enabledByDefault: true,
    ...(spec.description ? { description: spec.description } : {}),
  };
}

/** An approval policy a workspace's admins may choose for a server. */
export type ApprovalChoice = 'auto' | 'writes' | 'always';

/** What an admin enters to add a server to their workspace. */
export type WorkspaceServerInput = Omit<WorkspaceServerSpec, 'addedAt' | 'addedBy'>;

/** The budgets a workspace's admins may set (see `UsageLimits`). */
export const workspaceLimitNames = [
  'tokensPerPersonDay',
  'tokensPerWorkspaceDay',
  'toolCallsPerPersonDay',
  'questionsPerPersonMinute',
] as const satisfies ReadonlyArray<keyof UsageLimits>;

/** A catalog server as one person of one workspace sees it. */
export interface WorkspaceServer extends ServerStatus {
  /** Whether the workspace has it (the admins' choice, else `enabled_by_default`). */
  enabled: boolean;
  /** Whether this person has stored their own credential for it. */
  connected: boolean;
  /** Since when (their credential's last change), where the store knows. */
  connectedSince?: Date;
  /** The workspace's own server (its admins added it): who added it and where it points. */
  added?: { by: string; at: string; kind: 'mcp' | 'openapi'; url: string; auth: WorkspaceServerSpec['auth'] };
  /** The admins' approval policy for it, when they chose one. */
  approvalChoice?: ApprovalChoice;
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
  /**
   * Hosts, addresses or CIDR ranges a workspace's server may reach although they are loopback,
   * private or link-local (`WORKSPACE_SERVERS_ALLOW`, comma-separated); by default none.
   */
  workspaceServersAllow?: string;
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
  private readonly allow: AddressAllowlist;
  /** Each stored workspace server's config, by its stored JSON (an OpenAPI document compiles once). */
  private readonly compiled = new Map<string, ServerConfig>();
  /** Each workspace's servers as last read (for the synchronous lookups of connecting). */
  private readonly addedLately = new Map<string, WorkspaceServerSpec[]>();

  constructor(
    private readonly host: McpHost | undefined,
    private readonly store: PeopleStore | undefined,
    private readonly options: PeopleOptions = {},
  ) {
    this.logger = options.logger ?? silentLogger;
    this.allow = AddressAllowlist.parse(options.workspaceServersAllow);
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
    const store = person.user ? this.store : undefined;
    const ownCredentials = () => store?.credentials.of(person.workspace, person.user) ?? { secrets: {} };
    // One round trip when the catalog has per-person servers; the workspace's own may need a second.
    const catalogPersonal = this.catalog().some((server) => server.personalCredential);
    const [added, policies, early] = await Promise.all([
      this.addedServers(person.workspace),
      this.policies(person.workspace),
      catalogPersonal ? ownCredentials() : undefined,
    ]);
    const credentials =
      early ??
      (added.some((spec) => statusOfSpec(spec).personalCredential)
        ? await ownCredentials()
        : { secrets: {} });
    const workspaceServers = this.configsOf(person.workspace, added);
    return this.host.forPerson({
      ...person,
      credentials: credentials.secrets,
      settings: policies.enabled,
      ...(policies.approvals.size > 0 ? { approvals: policies.approvals } : {}),
      ...(workspaceServers.length > 0 ? { workspaceServers } : {}),
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
    const [policies, mine, added] = await Promise.all([
      this.policies(person.workspace),
      this.connectedServers(person),
      this.addedServers(person.workspace),
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
        ...server,
        connected: mine.has(server.name),
        ...(since ? { connectedSince: since } : {}),
        ...(choice ? { approvalChoice: choice } : {}),
      };
    });
  }

  /** A configured server that takes a person's own credential, or why it cannot. */
  personalServer(name: string, workspace?: string): ServerStatus | ConnectProblem {
    const added = workspace ? this.addedLately.get(workspace)?.find((spec) => spec.name === name) : undefined;
    const server: ServerStatus | undefined =
      this.catalog().find((entry) => entry.name === name) ?? (added ? statusOfSpec(added) : undefined);
    if (!server) return 'unknown server';
    if (!server.personalCredential) return 'not personal';
    if (!this.store) return 'no store';
    if (server.oauth && !this.host?.oauth) return 'no oauth';
    return server;
  }

  /** {@link personalServer}, with the workspace's own servers read afresh from the store. */
  async personalServerIn(workspace: string, name: string): Promise<ServerStatus | ConnectProblem> {
    await this.addedServers(workspace);
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
      this.remoteConfigIn(workspace, server),
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

  /** The client ID metadata document the app serves (OAuth), when OAuth is set up. */
  clientMetadataDocument(): Record<string, unknown> | undefined {
    return this.host?.oauth?.clientMetadataDocument();
  }

  /** A remote server's config: the operator's, else one the workspace added. */
  private async remoteConfigIn(workspace: string, server: string): Promise<RemoteServerConfig | undefined> {
    const catalog = this.host?.remoteConfig(server);
    if (catalog) return catalog;
    const added = this.configsOf(workspace, await this.addedServers(workspace)).find(
      (config) => config.name === server,
    );
    return added?.transport === 'http' || added?.transport === 'sse' ? added : undefined;
  }

  private async oauthOf(server: string, workspace: string) {
    const config = await this.remoteConfigIn(workspace, server);
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
    const config = await this.remoteConfigIn(person.workspace, server);
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

  /**
   * Checks a server an admin wants to add and connects it once (Test): its tools, or a
   * `WorkspaceServerError` naming the field to fix. Nothing is saved. `token`: a person's token to
   * test a server that takes each person's own (used for this test only).
   */
  async testServer(
    admin: PersonRef,
    input: WorkspaceServerInput,
    token?: string,
  ): Promise<{ spec: WorkspaceServerSpec; tools: string[] }> {
    if (!this.host) throw new WorkspaceServerError('url', 'MCP is off on this host (MCP_ENABLED)');
    const taken = [
      ...this.catalog().map((server) => server.name),
      ...(await this.addedServers(admin.workspace)).map((spec) => spec.name),
    ];
    const checked = checkWorkspaceServer({ ...input, addedBy: admin.user }, taken, this.allow, this.now());
    const spec = await fetchWorkspaceDocument(checked, this.allow);
    const config = workspaceServerConfig(spec, admin.workspace, this.allow);
    if (config.transport === 'http' && config.oauth) {
      // Each person signs in: the Test finds the server's authorization server (no tools before that).
      const oauth = this.host.oauth;
      if (!oauth)
        throw new WorkspaceServerError(
          'auth',
          'OAuth is not set up on this host: it needs a store and PUBLIC_URL',
        );
      try {
        await oauth.probe(config);
      } catch (error) {
        throw new WorkspaceServerError('url', (error as Error).message);
      }
      return { spec, tools: [] };
    }
    const result = await this.host.testServer(
      config,
      spec.auth === 'person' ? token?.trim() || undefined : undefined,
    );
    if (!result.ok)
      throw new WorkspaceServerError('url', `the server could not be reached: ${result.reason}`);
    return { spec: { ...spec, tools: result.tools.slice(0, 200) }, tools: result.tools };
  }

  /** Tests (as {@link testServer}) and adds a server to the workspace: offered from its next turn. */
  async addServer(admin: PersonRef, input: WorkspaceServerInput, token?: string): Promise<string[]> {
    if (!this.store?.workspaceServers)
      throw new WorkspaceServerError('url', 'servers cannot be added: there is no store');
    const { spec, tools } = await this.testServer(admin, input, token);
    await this.store.workspaceServers.put(admin.workspace, spec.name, JSON.stringify(spec));
    this.logger.info({ ...admin, server: spec.name, tools: tools.length }, 'workspace server added');
    await this.record({
      kind: 'admin',
      workspace: admin.workspace,
      person: admin.user,
      server: spec.name,
      detail: `added ${spec.name} (${spec.kind} ${new URL(spec.url).origin}, auth ${spec.auth})`,
    });
    return tools;
  }

  /** Removes a server the workspace added: its connections close, its settings go; whether there was one. */
  async removeServer(admin: PersonRef, name: string): Promise<boolean> {
    const removed = (await this.store?.workspaceServers?.delete(admin.workspace, name)) ?? false;
    if (!removed) return false;
    await this.store?.workspaces.forgetServer?.(admin.workspace, name);
    this.host?.forgetWorkspace(admin.workspace, name);
    await this.record({
      kind: 'admin',
      workspace: admin.workspace,
      person: admin.user,
      server: name,
      detail: `removed ${name}`,
    });
    return true;
  }

  /** An admin chooses which tools of a server need approval in the workspace (null: the server's own). */
  async setApproval(admin: PersonRef, server: string, approval: ApprovalChoice | null): Promise<void> {
    if (!this.store?.workspaces.setApproval)
      throw new Error('workspace settings cannot be stored: there is no store');
    await this.store.workspaces.setApproval(admin.workspace, server, approval, admin.user);
    await this.record({
      kind: 'admin',
      workspace: admin.workspace,
      person: admin.user,
      server,
      detail: `approval of ${server}: ${approval ?? 'the server’s own'}`,
    });
  }

  /** The workspace's own budgets, over the operator's. */
  async limits(workspace: string): Promise<UsageLimits | undefined> {
    return workspaceLimitsOf(await this.store?.workspaces.limits?.(workspace));
  }

  /** An admin sets the workspace's budgets (whole numbers above 0; absent ones follow the operator's). */
  async setLimits(admin: PersonRef, limits: UsageLimits): Promise<void> {
    if (!this.store?.workspaces.setLimits) throw new Error('budgets cannot be stored: there is no store');
    const kept: Record<string, number> = { ...workspaceLimitsOf({ ...limits }) };
    await this.store.workspaces.setLimits(admin.workspace, kept);
    await this.record({
      kind: 'admin',
      workspace: admin.workspace,
      person: admin.user,
      server: '',
      detail: `budgets: ${
        Object.entries(kept)
          .map(([name, value]) => `${name} ${value}`)
          .join(', ') || 'the operator’s'
      }`,
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

  /** The servers a workspace added, as stored; one that cannot be read is logged and left out. */
  private async addedServers(workspace: string): Promise<WorkspaceServerSpec[]> {
    const stored = this.store?.workspaceServers;
    if (!stored || !this.host) return [];
    const specs: WorkspaceServerSpec[] = [];
    for (const record of await stored.list(workspace)) {
      try {
        specs.push(JSON.parse(record.value) as WorkspaceServerSpec);
      } catch {
        this.logger.warn(
          { workspace, server: record.name },
          'a workspace server record is unreadable; skipped',
        );
      }
    }
    this.addedLately.set(workspace, specs);
    return specs;
  }

  /** Each spec's config (compiled once per stored version); one that no longer compiles is skipped. */
  private configsOf(workspace: string, specs: WorkspaceServerSpec[]): ServerConfig[] {
    const configs: ServerConfig[] = [];
    for (const spec of specs) {
      const key = `${workspace}\u0000${JSON.stringify(spec)}`;
      let config = this.compiled.get(key);
      if (!config) {
        try {
          config = workspaceServerConfig(spec, workspace, this.allow);
        } catch (error) {
          this.logger.warn(
            { workspace, server: spec.name, error: String(error) },
            'a workspace server is unusable; skipped',
          );
          continue;
        }
        if (this.compiled.size >= 500) this.compiled.clear();
        this.compiled.set(key, config);
      }
      configs.push(config);
    }
    return configs;
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
  const { store, connectHint, oauth, audit, workspaceServersAllow, ...mcp } = options;
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
    workspaceServersAllow:
      workspaceServersAllow ?? (options.env ?? process.env).WORKSPACE_SERVERS_ALLOW ?? '',
  });
}
