import type { JsonSchema } from '@ai-assistant/chat-types';
import type { Tool } from '@modelcontextprotocol/client';
import type { Redactor } from '../redaction.js';
import { type AppTool, type AppToolResult, maxAppResultBytes } from '../tool-host.js';
import type { Connection } from './connection.js';
import type { RawToolResult } from './format-tool-result.js';
import { approvalPolicy, needsApproval, toolHints } from './tool-index.js';

/** The MCP Apps view a tool declares: `_meta.ui.resourceUri` (or the older flat `ui/resourceUri`). */
export function viewUriOf(tool: Tool | undefined): string | undefined {
  const meta = tool?._meta as { ui?: { resourceUri?: unknown }; 'ui/resourceUri'?: unknown } | undefined;
  const uri = meta?.ui?.resourceUri ?? meta?.['ui/resourceUri'];
  return typeof uri === 'string' && uri.startsWith('ui://') ? uri : undefined;
}

/** Whether an App's view may call a tool: its `_meta.ui.visibility` lists "app" (absent: both may). */
export function appCallable(tool: Tool): boolean {
  const visibility = (tool._meta?.ui as { visibility?: unknown } | undefined)?.visibility;
  return !Array.isArray(visibility) || visibility.includes('app');
}

/**
 * A connection's tool as an App's view may call it, with whether it needs a person's approval (the
 * server's policy, or the stricter `chosen` policy of the workspace); undefined when there is none.
 */
export function appToolOf(
  connection: Connection,
  name: string,
  chosen?: 'auto' | 'writes' | 'always',
): AppTool | undefined {
  const tool = connection.tools.find((candidate) => candidate.name === name);
  if (!tool || !appCallable(tool)) return undefined;
  const hints = toolHints(tool);
  const operator = needsApproval(approvalPolicy(connection), tool.name, hints);
  const admins = chosen ? needsApproval(chosen, tool.name, hints) : false;
  const resourceUri = viewUriOf(tool);
  return {
    server: connection.config.name,
    tool: tool.name,
    description: tool.description ?? tool.title ?? tool.name,
    inputSchema: tool.inputSchema as JsonSchema,
    hints,
    needsApproval: connection.config.workspace !== undefined && chosen ? admins : operator || admins,
    ...(resourceUri ? { resourceUri } : {}),
  };
}

/** A result as the server sent it, redacted, for an App's view; undefined past {@link maxAppResultBytes}. */
export function appResultOf(
  result: RawToolResult,
  redactor: Redactor,
  secrets: string[],
): AppToolResult | undefined {
  const kept: AppToolResult = {
    content: Array.isArray(result.content) ? result.content : [],
    ...(result.structuredContent && typeof result.structuredContent === 'object'
      ? { structuredContent: result.structuredContent as Record<string, unknown> }
      : {}),
    ...(result.isError === true ? { isError: true } : {}),
    ...((result as { _meta?: unknown })._meta && typeof (result as { _meta?: unknown })._meta === 'object'
      ? { _meta: (result as { _meta: Record<string, unknown> })._meta }
      : {}),
  };
  const redacted = redactor.redactValue(kept, secrets) as AppToolResult;
  return JSON.stringify(redacted).length <= maxAppResultBytes ? redacted : undefined;
}
