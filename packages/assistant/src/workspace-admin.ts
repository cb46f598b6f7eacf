import type { Logger } from '@ai-assistant/chat-types';
import type {
  AddressAllowlist,
  McpHost,
  RemoteServerConfig,
  ServerConfig,
  ServerStatus,
} from '@ai-assistant/host-core';
import {
  type ApprovalChoice,
  type PeopleAuditEntry,
  type PeopleStore,
  type PersonRef,
  type WorkspaceServerInput,
  workspaceLimitsOf,
} from './people-types.js';
import { dropServerCredentials } from './server-credentials.js';
import { type UsageLimits, WorkspaceBudgetError } from './usage.js';
import {
  checkWorkspaceServer,
  fetchWorkspaceDocument,
  WorkspaceServerError,
  type WorkspaceServerSpec,
  workspaceServerConfig,
} from './workspace-servers.js';

/**
 * How a workspace's server shows among the catalog's: its state is what its Test found when added
 * (a server that takes each person's credential connects per person).
 */
export function statusOfSpec(spec: WorkspaceServerSpec): ServerStatus {
  const personal = spec.auth === 'person' || spec.auth === 'oauth';
  return {
    name: spec.name,
    transport: spec.kind === 'openapi' ? 'openapi' : 'http',
    // Its shared connection opens on the turn that uses it: `People.servers` tells how it stands now.
    state: personal ? 'per_user' : 'idle',
    toolCount: spec.tools?.length ?? 0,
    approval: spec.approval ?? 'writes',
    personalCredential: personal,
    ...(spec.auth === 'oauth' ? { oauth: true } : {}),
    enabledByDefault: true,
    ...(spec.description ? { description: spec.description } : {}),
  };
}

/** What {@link WorkspaceAdmin} shares with `People`: its logger, address rules, clock and audit. */
export interface WorkspaceAdminDeps {
  logger: Logger;
  allow: AddressAllowlist;
  now: () => Date;
  record: (entry: Omit<PeopleAuditEntry, 'at'>) => Promise<void>;
  /** The operator's budgets: the most a workspace's admins may set. */
  ceiling: UsageLimits;
}

/**
 * A workspace's own servers and settings as its admins change them: the servers they add (tested,
 * stored sealed, compiled once to configs), approvals per server and budgets. `People` holds one.
 */
export class WorkspaceAdmin {
  /** Each stored workspace server's config, by its stored JSON (an OpenAPI document compiles once). */
  private readonly compiled = new Map<string, ServerConfig>();
  /** Each workspace's servers as last read (for the synchronous lookups of connecting). */
  readonly lately = new Map<string, WorkspaceServerSpec[]>();

  constructor(
    private readonly host: McpHost | undefined,
    private readonly store: PeopleStore | undefined,
    private readonly deps: WorkspaceAdminDeps,
  ) {}

  /** An admin enables or disables a server for the workspace; disabled, its per-person connections close. */
  async setEnabled(workspace: string, server: string, enabled: boolean, by: string): Promise<void> {
    if (!this.store) throw new Error('workspace settings cannot be stored: there is no store');
    await this.store.workspaces.setEnabled(workspace, server, enabled, by);
    if (!enabled) this.host?.forgetWorkspace(workspace, server);
    this.deps.logger.info({ workspace, server, enabled, by }, 'workspace server setting changed');
    await this.deps.record({
      kind: 'admin',
      workspace,
      person: by,
      server,
      detail: `${enabled ? 'enabled' : 'disabled'} ${server}`,
    });
  }

  /** A remote server's config: the operator's, else one the workspace added. */
  async remoteConfig(workspace: string, server: string): Promise<RemoteServerConfig | undefined> {
    const catalog = this.host?.remoteConfig(server);
    if (catalog) return catalog;
    const added = this.configsOf(workspace, await this.added(workspace)).find(
      (config) => config.name === server,
    );
    return added?.transport === 'http' || added?.transport === 'sse' ? added : undefined;
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
      ...this.host.status().map((server) => server.name),
      ...(await this.added(admin.workspace)).map((spec) => spec.name),
    ];
    const checked = checkWorkspaceServer(
      { ...input, addedBy: admin.user },
      taken,
      this.deps.allow,
      this.deps.now(),
    );
    const spec = await fetchWorkspaceDocument(checked, this.deps.allow);
    const config = workspaceServerConfig(spec, admin.workspace, this.deps.allow);
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
    // Credentials an earlier server of this name left (removed before removal deleted them) are not
    // this server's: they would carry one person's token to another address.
    const config = workspaceServerConfig(spec, admin.workspace, this.deps.allow);
    await dropServerCredentials(
      this.host,
      this.store,
      this.deps.logger,
      admin.workspace,
      spec.name,
      config.transport === 'http' ? config : undefined,
    );
    await this.store.workspaceServers.put(admin.workspace, spec.name, JSON.stringify(spec));
    this.deps.logger.info({ ...admin, server: spec.name, tools: tools.length }, 'workspace server added');
    await this.deps.record({
      kind: 'admin',
      workspace: admin.workspace,
      person: admin.user,
      server: spec.name,
      detail: `added ${spec.name} (${spec.kind} ${new URL(spec.url).origin}, auth ${spec.auth})`,
    });
    return tools;
  }

  /**
   * Removes a server the workspace added: its connections close, its settings go, and every person's
   * credential for it is deleted (OAuth grants revoked first, best effort), so a later server of the
   * same name starts with nobody connected. Whether there was one.
   */
  async removeServer(admin: PersonRef, name: string): Promise<boolean> {
    const config = await this.remoteConfig(admin.workspace, name);
    const removed = (await this.store?.workspaceServers?.delete(admin.workspace, name)) ?? false;
    if (!removed) return false;
    await this.store?.workspaces.forgetServer?.(admin.workspace, name);
    this.host?.forgetWorkspace(admin.workspace, name);
    const dropped = await dropServerCredentials(
      this.host,
      this.store,
      this.deps.logger,
      admin.workspace,
      name,
      config,
    );
    await this.deps.record({
      kind: 'admin',
      workspace: admin.workspace,
      person: admin.user,
      server: name,
      detail: `removed ${name}${dropped > 0 ? ` and ${dropped} people’s credentials for it` : ''}`,
    });
    return true;
  }

  /** An admin chooses which tools of a server need approval in the workspace (null: the server's own). */
  async setApproval(admin: PersonRef, server: string, approval: ApprovalChoice | null): Promise<void> {
    if (!this.store?.workspaces.setApproval)
      throw new Error('workspace settings cannot be stored: there is no store');
    await this.store.workspaces.setApproval(admin.workspace, server, approval, admin.user);
    await this.deps.record({
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

  /**
   * An admin sets the workspace's budgets (whole numbers above 0; absent ones follow the operator's).
   * The operator's are a ceiling: one above it is refused with a `WorkspaceBudgetError` naming it.
   */
  async setLimits(admin: PersonRef, limits: UsageLimits): Promise<void> {
    if (!this.store?.workspaces.setLimits) throw new Error('budgets cannot be stored: there is no store');
    const kept: Record<string, number> = { ...workspaceLimitsOf({ ...limits }) };
    for (const [name, value] of Object.entries(kept) as Array<[keyof UsageLimits, number]>) {
      const ceiling = this.deps.ceiling[name];
      if (ceiling !== undefined && value > ceiling)
        throw new WorkspaceBudgetError(
          name,
          `${name} may be at most ${ceiling.toLocaleString('en-US')} (the operator’s limit): set a lower number, or leave it empty to use the operator’s`,
        );
    }
    await this.store.workspaces.setLimits(admin.workspace, kept);
    await this.deps.record({
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

  /** The servers a workspace added, as stored; one that cannot be read is logged and left out. */
  async added(workspace: string): Promise<WorkspaceServerSpec[]> {
    const stored = this.store?.workspaceServers;
    if (!stored || !this.host) return [];
    const specs: WorkspaceServerSpec[] = [];
    for (const record of await stored.list(workspace)) {
      try {
        specs.push(JSON.parse(record.value) as WorkspaceServerSpec);
      } catch {
        this.deps.logger.warn(
          { workspace, server: record.name },
          'a workspace server record is unreadable; skipped',
        );
      }
    }
    this.lately.set(workspace, specs);
    return specs;
  }

  /** Each spec's config (compiled once per stored version); one that no longer compiles is skipped. */
  configsOf(workspace: string, specs: WorkspaceServerSpec[]): ServerConfig[] {
    const configs: ServerConfig[] = [];
    for (const spec of specs) {
      const key = `${workspace}\u0000${JSON.stringify(spec)}`;
      let config = this.compiled.get(key);
      if (!config) {
        try {
          config = workspaceServerConfig(spec, workspace, this.deps.allow);
        } catch (error) {
          this.deps.logger.warn(
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
}
