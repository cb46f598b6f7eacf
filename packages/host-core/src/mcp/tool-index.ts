import type { JsonSchema, Logger, ToolDefinition, ToolHints } from '@ai-assistant/chat-types';
import type { Tool } from '@modelcontextprotocol/client';
import type { ApprovalPolicy } from '../config/mcp-config.js';
import type { Connection } from './connection.js';
import type { AutoContextTool, ResolvedTool } from './manager-types.js';
import { encodeToolName } from './tool-names.js';

/** A connection's tools that its `allowed_tools` lets the model see. */
export function visibleTools(connection: Connection): Tool[] {
  const allowed = connection.config.allowedTools;
  const listed = allowed ? connection.tools.filter((tool) => allowed.includes(tool.name)) : connection.tools;
  // MCP Apps: a tool only an app's view may call (`_meta.ui.visibility` without "model") is never
  // offered to a model, so a model can neither see nor call it.
  const tools = listed.some(appOnly) ? listed.filter((tool) => !appOnly(tool)) : listed;
  // A tool that must run as a task, on a server that does not offer task-based tool calls, could only
  // fail: it is never offered.
  if (connection.kind !== 'mcp' || runsTasks(connection)) return tools;
  return tools.filter((tool) => taskSupportOf(tool) !== 'required');
}

/** Whether an MCP Apps tool is for its app's view only (`_meta.ui.visibility` lists no "model"). */
export function appOnly(tool: Tool): boolean {
  const visibility = (tool._meta?.ui as { visibility?: unknown } | undefined)?.visibility;
  return Array.isArray(visibility) && !visibility.includes('model');
}

/** A tool's `execution.taskSupport` (`required`, `optional`, `forbidden`), when it says. */
export function taskSupportOf(tool: Tool | undefined): string | undefined {
  return (tool as { execution?: { taskSupport?: string } } | undefined)?.execution?.taskSupport;
}

/**
 * Whether the server runs tool calls as tasks: its `tasks.requests.tools.call` capability (2025-11-25),
 * or the tasks extension (2026-07-28).
 */
export function runsTasks(connection: Connection): boolean {
  return (
    connection.kind === 'mcp' &&
    (connection.extension !== undefined ||
      connection.client?.getServerCapabilities()?.tasks?.requests?.tools?.call !== undefined)
  );
}

/** The model-facing name of a connection's tool: `mcp__<server>__<tool>`, made safe for every provider. */
export function modelName(connection: Connection, tool: string): string {
  return connection.toolName ? connection.toolName(tool) : encodeToolName(connection.config.name, tool);
}

/**
 * States whose tools are listed: a server that is restarting or down keeps its tools, so a call gets
 * "the server is restarting" rather than "no such tool"; one stopped until its first use (`idle`)
 * lists its cached tools, and a call starts it.
 */
export const listedStates: ReadonlySet<Connection['state']> = new Set([
  'connected',
  'connecting',
  'restarting',
  'failed',
  'idle',
]);

/** Which connection and tool each model-facing name stands for; rebuilt when tools or states change. */
export class ToolIndex {
  private entries = new Map<string, { connection: Connection; tool: Tool }>();

  /**
   * Indexes the visible tools of every listed connection, in the servers' order. A name keeps its
   * first holder: a later tool that reads alike (or one `taken` claims for another) is left out and
   * `clash` hears of it, so a name always runs the tool it named before.
   */
  rebuild(
    connections: Connection[],
    clash?: (fields: { server: string; tool: string; name: string }, message: string) => void,
    taken: (name: string) => boolean = () => false,
  ): void {
    const entries = new Map<string, { connection: Connection; tool: Tool }>();
    for (const connection of connections) {
      if (!listedStates.has(connection.state)) continue;
      for (const tool of visibleTools(connection)) {
        const name = modelName(connection, tool.name);
        if (entries.has(name) || taken(name))
          clash?.({ server: connection.config.name, tool: tool.name, name }, 'tool name taken; not offered');
        else entries.set(name, { connection, tool });
      }
    }
    this.entries = entries;
  }

  get(name: string): { connection: Connection; tool: Tool } | undefined {
    return this.entries.get(name);
  }

  /** The tool definitions the model sees, with each tool's hints and whether it needs approval. */
  definitions(): ToolDefinition[] {
    return [...this.entries.entries()].map(([name, { connection, tool }]) => {
      const hints = toolHints(tool);
      return {
        name,
        description: tool.description ?? tool.title ?? tool.name,
        inputSchema: tool.inputSchema as JsonSchema,
        hints,
        needsApproval: needsApproval(approvalPolicy(connection), tool.name, hints),
      };
    });
  }

  /** The server and original tool name behind a model-facing name. */
  resolve(name: string): ResolvedTool | undefined {
    const entry = this.entries.get(name);
    if (!entry) return undefined;
    const { statusMessage } = entry.connection.config;
    return {
      server: entry.connection.config.name,
      tool: entry.tool.name,
      ...(statusMessage ? { statusMessage } : {}),
    };
  }

  clear(): void {
    this.entries = new Map();
  }
}

/** The configured `auto_context_tool` of each connected server that offers it; `missing` hears of the rest. */
export function autoContextTools(
  connections: Connection[],
  missing: (server: string, tool: string) => void,
): AutoContextTool[] {
  return connections.flatMap((connection) => {
    const wanted = connection.config.autoContextTool;
    if (!wanted || connection.state !== 'connected') return [];
    const tool = connection.tools.find((candidate) => candidate.name === wanted);
    if (!tool) {
      missing(connection.config.name, wanted);
      return [];
    }
    return [
      {
        server: connection.config.name,
        name: modelName(connection, tool.name),
        inputSchema: tool.inputSchema as JsonSchema,
      },
    ];
  });
}

/** A tool's MCP annotations with the spec's defaults (not read-only, destructive, not idempotent, open world). */
export function toolHints(tool: Tool): ToolHints {
  const annotations = tool.annotations ?? {};
  return {
    readOnly: annotations.readOnlyHint ?? false,
    destructive: annotations.destructiveHint ?? true,
    idempotent: annotations.idempotentHint ?? false,
    openWorld: annotations.openWorldHint ?? true,
  };
}

/** A server's approval policy: its `approval`, else `writes` (MCP and OpenAPI servers) or `auto` (the host's own). */
export function approvalPolicy(connection: Connection): ApprovalPolicy {
  const { approval, transport } = connection.config;
  if (approval) return approval;
  return transport === 'builtin' ? 'auto' : 'writes';
}

/** Whether a call of `tool` waits for a person under `policy`. */
export function needsApproval(policy: ApprovalPolicy, tool: string, hints: ToolHints): boolean {
  if (Array.isArray(policy)) return policy.includes(tool);
  if (policy === 'always') return true;
  if (policy === 'writes') return !hints.readOnly;
  return false;
}

/** The fewest tools a provider accepts in one request (OpenAI: 128). */
const toolsPerRequestLimit = 128;

/** Warns when more tools are offered than the strictest provider takes in one request. */
export function warnOnManyTools(offered: number, logger: Logger): void {
  if (offered <= toolsPerRequestLimit) return;
  logger.warn(
    { tools: offered, limit: toolsPerRequestLimit },
    `${offered} tools are offered, more than OpenAI accepts in one request (${toolsPerRequestLimit}); each turn sends the most relevant, or narrow them with allowed_tools`,
  );
}
