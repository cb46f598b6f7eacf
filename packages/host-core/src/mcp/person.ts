import type { Tool } from '@modelcontextprotocol/client';
import type { ServerConfig } from '../config/mcp-config.js';
import type { McpView } from '../mcp-host.js';
import type { AppResource } from '../tool-host.js';
import type { Connection } from './connection.js';
import type { RawToolResult } from './format-tool-result.js';
import type {
  CallToolOptions,
  FilledPrompt,
  PromptEntry,
  ResourceEntry,
  ToolCallOutcome,
} from './manager-types.js';

/** Who is asking, for one turn: their credentials and their workspace's server settings. */
export interface Person {
  workspace: string;
  user: string;
  /** Server name → this person's secret: `${token}` in that server's templates. */
  credentials: Readonly<Record<string, string>>;
  /** The workspace admins' choices (server → enabled); servers absent follow `enabled_by_default`. */
  settings?: ReadonlyMap<string, boolean>;
  /** How this person connects a server, for the model to tell them (e.g. "/assistant connect github"). */
  connectHint?: (server: string) => string;
  /**
   * What the app adds to this person's view as the host's own server (`host`): tools, resources and
   * prompts of its own, for this turn only (e.g. the person's past conversations).
   */
  additions?: HostAdditions;
  /**
   * The app's settings as people may read them (models, limits, budgets; never a secret): the host then
   * offers the resource `host://settings`, with the servers this view has added to them.
   */
  appSettings?: () => Promise<Record<string, unknown>>;
  /**
   * The servers this person's workspace added (remote MCP or OpenAPI; see `workspaceServerConfig`):
   * offered in this view only, beside the catalog's, connected to public addresses only.
   */
  workspaceServers?: ServerConfig[];
  /**
   * The workspace admins' approval policy per server. For the operator's servers the stricter of the
   * operator's and the admins' applies (admins can ask for more approvals, never fewer); for the
   * workspace's own servers the admins' applies.
   */
  approvals?: ReadonlyMap<string, 'auto' | 'writes' | 'always'>;
}

/**
 * Tools, resources and prompts an app adds to one person's view as the host's own server (`host`),
 * beside its MCP servers': the view lists them, calls them on the path every tool takes (approval,
 * deadline, redaction of the person's secrets) and reads them for that person only.
 */
export interface HostAdditions {
  /** MCP tool definitions; offered to the model as `host__<name>`. */
  tools: Tool[];
  /** Runs one of `tools`; answers as an MCP server would (`content`, `structuredContent`, `isError`). */
  callTool(name: string, args: Record<string, unknown>): Promise<RawToolResult>;
  resources: Array<Omit<ResourceEntry, 'server'>>;
  /** One of `resources` as text. */
  readResource(uri: string): Promise<string>;
  prompts: Array<Omit<PromptEntry, 'server'>>;
  /** One of `prompts` filled with `args`. */
  getPrompt(name: string, args: Record<string, string>): Promise<FilledPrompt>;
}

/** What a {@link PersonView} needs from the manager. */
export interface ViewSource {
  /** Every shared server, nothing filtered: what the view narrows to one workspace and person. */
  shared: McpView;
  /** Every configured server. */
  configs(): ServerConfig[];
  /** The `system_instruction` of each connected shared server, by server. */
  instructions(): Array<{ server: string; text: string }>;
  /** Connected shared servers with resources, or that may link to some (the resource tools' reach). */
  resourceServers(): string[];
  /** Runs a tool on one of the person's own connections. */
  callOn(
    connection: Connection,
    tool: string,
    name: string,
    args: Record<string, unknown>,
    options: CallToolOptions,
  ): Promise<ToolCallOutcome>;
  /** Reads a resource for an App's view on one of the person's own connections. */
  readOn(connection: Connection, uri: string, options: CallToolOptions): Promise<AppResource>;
  warn(fields: Record<string, unknown>, message: string): void;
}

/** Whether a workspace has a server: the admins' choice, else the catalog's `enabled_by_default`. */
export function serverEnabled(
  settings: ReadonlyMap<string, boolean> | undefined,
  config: ServerConfig | undefined,
): boolean {
  if (!config) return true; // the host's own tools
  return settings?.get(config.name) ?? config.enabledByDefault ?? true;
}
