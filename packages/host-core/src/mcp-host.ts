import type { RemoteServerConfig, ServerConfig } from './config/server-types.js';
import type {
  CallToolOptions,
  FilledPrompt,
  PromptEntry,
  ResourceEntry,
  ResourceTemplateEntry,
  ServerStatus,
  ToolCallOutcome,
} from './mcp/client-manager.js';
import type { Person } from './mcp/person.js';
import type { PersonKey } from './mcp/personal-pool.js';
import type { OAuthService } from './oauth/oauth-service.js';
import type { AppResource, AppTool, ToolHost } from './tool-host.js';

/**
 * One person's view of MCP for one turn, slash command or pane: the loop's {@link ToolHost} plus the
 * resources and prompts of their workspace's enabled servers only, read with their own credentials.
 * A server the workspace disabled is reached by no path of it (its resources and prompts are neither
 * listed nor read: reading one fails as for an unknown server).
 */
export interface McpView extends ToolHost {
  listResources(): ResourceEntry[];
  listResourceTemplates(): ResourceTemplateEntry[];
  listPrompts(): PromptEntry[];
  /** Reads a resource as text, with the same timeouts and errors as tools. */
  readResource(server: string, uri: string, options?: CallToolOptions): Promise<ToolCallOutcome>;
  /** Fills a prompt and returns its messages as plain text. */
  getPrompt(
    server: string,
    name: string,
    args?: Record<string, string>,
    options?: CallToolOptions,
  ): Promise<FilledPrompt>;
  /**
   * Values the server suggests for a prompt's argument as typed so far (`completion/complete`, with
   * the arguments already given as context); none when the server offers no completions.
   */
  completePromptArgument(
    server: string,
    prompt: string,
    argument: { name: string; value: string },
    context?: Record<string, string>,
    options?: CallToolOptions,
  ): Promise<string[]>;
  /**
   * MCP Apps, for the host's own page and never a model: a tool of `server` its App's view may call
   * (`_meta.ui.visibility` lists "app", app-only tools included), with whether a person must approve it.
   */
  appTool(server: string, tool: string): AppTool | undefined;
  /**
   * MCP Apps: calls one of `appTool`'s tools for an App's view, on the path every call takes (timeout,
   * this view's credentials, redaction); the result as the server sent it is `outcome.app.result`.
   * Approval is the caller's to ask first. Throws as `callTool` does.
   */
  callAppTool(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options?: CallToolOptions,
  ): Promise<ToolCallOutcome>;
  /**
   * MCP Apps: reads a resource of `server` as the server sent it (an App's `ui://` view, or what the
   * view reads), redacted; for the host's page only, never a model's context.
   */
  readAppResource(server: string, uri: string, options?: CallToolOptions): Promise<AppResource>;
}

/**
 * What an app (Slack, the terminal chat) uses of its MCP servers: everything of every server (a view
 * with nothing filtered) plus the servers' state, per-person views, and shutting down.
 * `McpClientManager` is one; apps depend on this interface, never on the class.
 */
export interface McpHost extends McpView {
  /** Every configured server: its state, tool count and (when failed) why. */
  status(): ServerStatus[];
  /** MCP authorization (each person's OAuth grants); undefined when the app set none up. */
  readonly oauth: OAuthService | undefined;
  /** A configured remote server's config (what connecting it with OAuth needs). */
  remoteConfig(server: string): RemoteServerConfig | undefined;
  /** One person's view for one turn: their workspace's servers, their own credentials and connections. */
  forPerson(person: Person): Promise<McpView>;
  /**
   * Connects a server once without keeping it and lists its tools (an admin's Test of a workspace's
   * server); `secret` fills `${token}` for this test only. Never throws.
   */
  testServer(
    config: ServerConfig,
    secret?: string,
  ): Promise<{ ok: true; tools: string[] } | { ok: false; reason: string }>;
  /**
   * A connection of the per-person pool as it stands now: a person's own to a per-person server, or
   * (`user: ''`) a workspace's own server's shared one; connected, restarting or failed with why (no
   * secret in it, the person's included); undefined when it is not open (it opens on the next turn
   * that uses it, and closes when idle).
   */
  connectionStatus(person: PersonKey, server: string): ServerStatus | undefined;
  /** A person's credential for `server` (or all) changed or was deleted: their own connections close. */
  forgetCredential(person: PersonKey, server?: string): void;
  /** A workspace was uninstalled (or disabled `server`): its per-person connections (to it) close now. */
  forgetWorkspace(workspace: string, server?: string): void;
  /** Closes every connection and ends every child process. */
  close(): Promise<void>;
}
