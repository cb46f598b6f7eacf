import type { ToolDefinition } from '@ai-assistant/chat-types';
import type { ServerConfig } from '../config/mcp-config.js';
import type { McpView } from '../mcp-host.js';
import { grantSecrets, parseGrant } from '../oauth/grant.js';
import type { AppResource, AppTool } from '../tool-host.js';
import { appToolOf } from './app-views.js';
import type { Connection } from './connection.js';
import { credentialsNeeded, toolNotFound } from './errors.js';
import type { RequestTokens } from './header-templates.js';
import type {
  AutoContextTool,
  CallToolOptions,
  FilledPrompt,
  PromptEntry,
  ResolvedTool,
  ResourceEntry,
  ResourceTemplateEntry,
  ToolCallOutcome,
} from './manager-types.js';
import { type OwnServer, ownServerNotes, ownServers, ownUnavailable } from './own-servers.js';
import { type HostAdditions, type Person, serverEnabled, type ViewSource } from './person.js';
import { hostConnection, hostLocalConnection, hostServerName, settingsResource } from './resource-tools.js';
import { autoContextTools, listedStates, needsApproval, ToolIndex } from './tool-index.js';

/**
 * One person's view of the host for one turn: the workspace's enabled servers only, their own
 * per-person connections, and `${token}` filled with their credential for the server being called
 * and no other. A tool of a disabled server is neither listed nor callable, even when named.
 */
export class PersonView implements McpView {
  private readonly index = new ToolIndex();
  private readonly byName: Map<string, ServerConfig>;
  /** The host's resource tools over this view's resources only. */
  private readonly hostTools = hostConnection(this);
  private ownSecrets: string[] | undefined;

  constructor(
    private readonly source: ViewSource,
    private readonly person: Person,
    /** The person's own connections (per_user servers they have a credential for). */
    private readonly personal: Connection[],
  ) {
    this.byName = new Map(source.configs().map((config) => [config.name, config]));
    // The operator's shared tools keep their names: a person's or workspace's tool that reads alike is
    // left out (a catalog server's own connections come first, so they win over a workspace's).
    const added = person.additions;
    this.index.rebuild(
      added?.tools.length
        ? [
            ...personal,
            hostLocalConnection(
              { tools: added.tools, call: (tool, args) => added.callTool(tool, args) },
              added.tools,
            ),
          ]
        : personal,
      (fields, message) => source.warn(fields, message),
      (name) => source.shared.resolveTool(name) !== undefined,
    );
  }

  private enabled(server: string): boolean {
    return serverEnabled(this.person.settings, this.byName.get(server));
  }

  private sharedTool(name: string): ResolvedTool | undefined {
    const resolved = this.source.shared.resolveTool(name);
    if (!resolved) return undefined;
    // The host's resource tools stand for the view's own resources: offered while it has some.
    if (resolved.server === hostServerName) return this.hasResources() ? resolved : undefined;
    return this.enabled(resolved.server) ? resolved : undefined;
  }

  private hasResources(): boolean {
    // The host's counts resource alone does not earn two more tools on every request.
    return this.source.resourceServers().some((server) => this.enabled(server));
  }

  listResources(): ResourceEntry[] {
    const shared = this.source.shared.listResources().filter((entry) => this.enabled(entry.server));
    return [
      ...shared,
      ...(this.person.additions?.resources ?? []).map((entry) => ({ ...entry, server: hostServerName })),
      ...(this.person.appSettings ? [settingsResource] : []),
    ];
  }

  /** `host://settings`: the app's settings, and this view's servers with their transport and tools offered. */
  private async settingsText(appSettings: () => Promise<Record<string, unknown>>): Promise<string> {
    const tools = new Map<string, number>();
    for (const tool of this.listTools()) {
      const server = this.resolveTool(tool.name)?.server;
      if (server) tools.set(server, (tools.get(server) ?? 0) + 1);
    }
    const servers = [...this.byName.values()]
      .filter((config) => !config.disabled && this.enabled(config.name))
      .map((config) => ({
        name: config.name,
        transport: config.transport,
        tools: tools.get(config.name) ?? 0,
        ...(config.personalCredential ? { yourOwnCredential: true } : {}),
      }));
    return JSON.stringify({ ...(await appSettings()), servers }, null, 2);
  }

  listResourceTemplates(): ResourceTemplateEntry[] {
    return this.source.shared.listResourceTemplates().filter((entry) => this.enabled(entry.server));
  }

  listPrompts(): PromptEntry[] {
    const shared = this.source.shared.listPrompts().filter((entry) => this.enabled(entry.server));
    const added = (this.person.additions?.prompts ?? []).map((entry) => ({
      ...entry,
      server: hostServerName,
    }));
    return [...shared, ...added];
  }

  /** What the app added to this view, when `server` is the host. */
  private additionsOf(server: string): HostAdditions | undefined {
    return server === hostServerName ? this.person.additions : undefined;
  }

  /** A server this view may reach: configured, not the host's own, and enabled for the workspace. */
  private reachable(server: string, what: string): void {
    if (!this.byName.has(server) || !this.enabled(server)) throw toolNotFound(`${server}: ${what}`);
  }

  async readResource(server: string, uri: string, options: CallToolOptions = {}): Promise<ToolCallOutcome> {
    const added = this.additionsOf(server);
    if (added?.resources.some((entry) => entry.uri === uri))
      return { text: await added.readResource(uri), isError: false, server, tool: 'read_resource' };
    const appSettings = server === hostServerName ? this.person.appSettings : undefined;
    if (appSettings && uri === settingsResource.uri)
      return {
        text: this.redact(await this.settingsText(appSettings)),
        isError: false,
        server,
        tool: 'read_resource',
      };
    this.reachable(server, `read_resource ${uri}`);
    const outcome = await this.source.shared.readResource(server, uri, this.optionsFor(server, options));
    return { ...outcome, text: this.redact(outcome.text) };
  }

  async getPrompt(
    server: string,
    name: string,
    args: Record<string, string> = {},
    options: CallToolOptions = {},
  ): Promise<FilledPrompt> {
    const added = this.additionsOf(server);
    if (added?.prompts.some((entry) => entry.name === name)) return added.getPrompt(name, args);
    this.reachable(server, `prompt ${name}`);
    const filled = await this.source.shared.getPrompt(server, name, args, this.optionsFor(server, options));
    return {
      ...filled,
      ...(filled.description ? { description: this.redact(filled.description) } : {}),
      messages: filled.messages.map((message) => ({ ...message, content: this.redact(message.content) })),
    };
  }

  async completePromptArgument(
    server: string,
    prompt: string,
    argument: { name: string; value: string },
    context: Record<string, string> = {},
    options: CallToolOptions = {},
  ): Promise<string[]> {
    if (this.additionsOf(server)?.prompts.some((entry) => entry.name === prompt)) return [];
    this.reachable(server, `prompt ${prompt}`);
    const values = await this.source.shared.completePromptArgument(
      server,
      prompt,
      argument,
      context,
      this.optionsFor(server, options),
    );
    return values.map((value) => this.redact(value));
  }

  listTools(): ToolDefinition[] {
    const tools = [
      ...this.source.shared.listTools().filter((tool) => this.sharedTool(tool.name)),
      ...this.index.definitions(),
    ];
    const approvals = this.person.approvals;
    if (!approvals || approvals.size === 0) return tools;
    return tools.map((tool) => {
      const resolved = this.resolveTool(tool.name);
      const chosen = resolved ? approvals.get(resolved.server) : undefined;
      if (!resolved || !chosen || !tool.hints) return tool;
      const admins = needsApproval(chosen, resolved.tool, tool.hints);
      const own = this.byName.get(resolved.server)?.workspace !== undefined;
      return { ...tool, needsApproval: own ? admins : admins || tool.needsApproval === true };
    });
  }

  resolveTool(name: string): ResolvedTool | undefined {
    return this.index.resolve(name) ?? this.sharedTool(name);
  }

  callTool(
    name: string,
    args: Record<string, unknown>,
    options: CallToolOptions = {},
  ): Promise<ToolCallOutcome> {
    const own = this.index.get(name);
    // Whatever a server answers, this person's credentials never show in it (another's may: they are
    // not secrets of this turn, and hiding them would rewrite this person's results).
    const hidden = (outcome: ToolCallOutcome) => ({ ...outcome, text: this.redact(outcome.text) });
    // A failure's text (a server's stderr, an HTTP body) may quote the person's credential too.
    const hiddenError = (error: unknown): never => {
      if (error instanceof Error) error.message = this.redact(error.message);
      throw error;
    };
    if (own)
      return this.source
        .callOn(own.connection, own.tool.name, name, args, this.optionsFor(undefined, options))
        .then(hidden, hiddenError);
    const shared = this.sharedTool(name);
    if (!shared) {
      // A tool of a per-person server this person has not connected: they can fix that (Connect).
      const unconnected = this.unconnectedServerOf(name);
      return Promise.reject(
        unconnected ? credentialsNeeded(name, unconnected, ['token']) : toolNotFound(name),
      );
    }
    // host__list_resources / host__read_resource run over this view, never over every server.
    if (shared.server === hostServerName)
      return this.source
        .callOn(this.hostTools, shared.tool, name, args, this.optionsFor(undefined, options))
        .then(hidden, hiddenError);
    return this.source.shared
      .callTool(name, args, this.optionsFor(shared.server, options))
      .then(hidden, hiddenError);
  }

  appTool(server: string, tool: string): AppTool | undefined {
    const chosen = this.person.approvals?.get(server);
    const own = this.personal.find((connection) => connection.config.name === server);
    if (own) return appToolOf(own, tool, chosen);
    if (!this.byName.has(server) || !this.enabled(server) || this.unconnected(server)) return undefined;
    const shared = this.source.shared.appTool(server, tool);
    if (!shared || !chosen) return shared;
    // The operator's server: the stricter of the operator's and the admins' policies.
    return { ...shared, needsApproval: shared.needsApproval || needsApproval(chosen, tool, shared.hints) };
  }

  callAppTool(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: CallToolOptions = {},
  ): Promise<ToolCallOutcome> {
    const hidden = (outcome: ToolCallOutcome): ToolCallOutcome => ({
      ...outcome,
      text: this.redact(outcome.text),
      ...(outcome.app ? { app: this.redact(outcome.app) } : {}),
    });
    const hiddenError = (error: unknown): never => {
      if (error instanceof Error) error.message = this.redact(error.message);
      throw error;
    };
    const name = `${server}: ${tool}`;
    if (this.unconnected(server)) return Promise.reject(credentialsNeeded(name, server, ['token']));
    if (!this.appTool(server, tool)) return Promise.reject(toolNotFound(name));
    const own = this.personal.find((connection) => connection.config.name === server);
    const kept = { ...options, appResult: true };
    if (own)
      return this.source
        .callOn(own, tool, name, args, this.optionsFor(undefined, kept))
        .then(hidden, hiddenError);
    return this.source.shared
      .callAppTool(server, tool, args, this.optionsFor(server, kept))
      .then(hidden, hiddenError);
  }

  async readAppResource(server: string, uri: string, options: CallToolOptions = {}): Promise<AppResource> {
    if (this.unconnected(server))
      throw credentialsNeeded(`${server}: read_resource ${uri}`, server, ['token']);
    const own = this.personal.find((connection) => connection.config.name === server);
    if (own) return this.redact(await this.source.readOn(own, uri, this.optionsFor(undefined, options)));
    this.reachable(server, `read_resource ${uri}`);
    return this.redact(
      await this.source.shared.readAppResource(server, uri, this.optionsFor(server, options)),
    );
  }

  /** A per-person server of the workspace this person has not connected. */
  private unconnected(server: string): boolean {
    const config = this.byName.get(server);
    return (
      config !== undefined &&
      !config.disabled &&
      config.connection === 'per_user' &&
      this.enabled(server) &&
      this.person.credentials[server] === undefined &&
      !this.personal.some((connection) => connection.config.name === server)
    );
  }

  unavailableTool(name: string): Error | undefined {
    const server = this.unconnectedServerOf(name);
    return server ? credentialsNeeded(name, server, ['token']) : undefined;
  }

  /** The per-person server of the workspace a tool name belongs to, when the person has not connected it. */
  private unconnectedServerOf(name: string): string | undefined {
    for (const config of this.byName.values()) {
      if (config.disabled || config.connection !== 'per_user' || !this.enabled(config.name)) continue;
      if (this.person.credentials[config.name] !== undefined) continue;
      if (name.startsWith(`mcp__${config.name}__`)) return config.name;
    }
    return undefined;
  }

  systemInstructions(): string[] {
    const shared = this.source.instructions().filter((entry) => this.enabled(entry.server));
    const notes = ownServerNotes(
      this.own(),
      (text) => this.redact(text),
      (server) => this.credentialHint(server),
    );
    return [...shared.map((entry) => entry.text), ...notes];
  }

  /** This person's own servers in the workspace, each with its connection when open. */
  private own(): OwnServer[] {
    return ownServers(this.byName.values(), this.personal, (server) => this.enabled(server));
  }

  responseInstructionFor(toolName: string): string | undefined {
    const own = this.index.get(toolName);
    if (own) return own.connection.config.responseInstruction;
    return this.sharedTool(toolName) ? this.source.shared.responseInstructionFor(toolName) : undefined;
  }

  autoContextTools(): AutoContextTool[] {
    return [
      ...this.source.shared.autoContextTools().filter((tool) => this.enabled(tool.server)),
      ...autoContextTools(
        this.personal.filter((connection) => listedStates.has(connection.state)),
        (server, tool) =>
          this.source.warn({ server, tool }, 'auto_context_tool is not offered by its server'),
      ),
    ];
  }

  /** The shared servers that cannot run now, then this person's own connections that failed, with why. */
  unavailableServers(): Array<{ server: string; restarting: boolean; reason?: string }> {
    return [
      ...this.source.shared.unavailableServers().filter((entry) => this.enabled(entry.server)),
      ...ownUnavailable(this.own(), (text) => this.redact(text)),
    ];
  }

  /**
   * This person's secrets: each credential, or an OAuth grant's tokens and client secret (the grant's
   * JSON itself never travels; its tokens do).
   */
  private get secrets(): string[] {
    this.ownSecrets ??= Object.values(this.person.credentials).flatMap((value) => {
      const grant = parseGrant(value);
      return grant ? grantSecrets(grant) : [value];
    });
    return this.ownSecrets;
  }

  /** Pinned secrets and this person's own credentials (never another person's) replaced. */
  redact<T>(value: T, extra: Iterable<string> = []): T {
    return this.source.shared.redact(value, [...this.secrets, ...extra]);
  }

  asker(): { workspace: string; user: string } {
    return { workspace: this.person.workspace, user: this.person.user };
  }

  credentialHint(server: string): string {
    return this.person.connectHint?.(server) ?? `connect ${server}`;
  }

  /** The caller's tokens with `${token}` set to this person's credential for `server`, and only that. */
  private optionsFor(server: string | undefined, options: CallToolOptions): CallToolOptions {
    const { token: _ignored, ...rest } = options.tokens ?? {};
    const secret = server === undefined ? undefined : this.person.credentials[server];
    const tokens: RequestTokens = secret === undefined ? rest : { ...rest, token: secret };
    return { ...options, tokens };
  }
}
