import type { Tool } from '@modelcontextprotocol/client';
import type { BuiltinServerConfig } from '../config/mcp-config.js';
import { appView } from './catalog.js';
import type { LocalConnection } from './connection.js';
import type { LocalServer } from './local-servers.js';
import type {
  CallToolOptions,
  ResourceEntry,
  ResourceTemplateEntry,
  ToolCallOutcome,
} from './manager-types.js';

/** The name of the host's own server (`host__list_resources`, `host__read_resource`). */
export const hostServerName = 'host';

/** Where the host's resource tools read from: the manager, or one person's view of it. */
export interface ResourceSource {
  listResources(): ResourceEntry[];
  listResourceTemplates(): ResourceTemplateEntry[];
  readResource(server: string, uri: string, options: CallToolOptions): Promise<ToolCallOutcome>;
}

/** The tools of the `host` server; offered only while some connected server has resources. */
export const resourceTools: Tool[] = [
  {
    name: 'list_resources',
    description:
      'Lists the resources (documents, files, records) the connected servers offer, with their server and URI.',
    inputSchema: {
      type: 'object',
      properties: { server: { type: 'string', description: 'Only this server (optional)' } },
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: 'read_resource',
    description:
      'Reads one resource by server and URI (from list_resources, or a URI filled in from a template).',
    inputSchema: {
      type: 'object',
      properties: { server: { type: 'string' }, uri: { type: 'string' } },
      required: ['server', 'uri'],
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
];

const text = (value: string, isError = false) => ({
  content: [{ type: 'text' as const, text: value }],
  isError,
});

function listing(source: ResourceSource, server: string | undefined): string {
  const lines = [
    ...source
      .listResources()
      .filter((resource) => !server || resource.server === server)
      .map(
        (resource) =>
          `- server: ${resource.server} | uri: ${resource.uri} | ${resource.name}${resource.description ? ` — ${resource.description}` : ''}`,
      ),
    ...source
      .listResourceTemplates()
      .filter((template) => !server || template.server === server)
      .map(
        (template) =>
          `- server: ${template.server} | template: ${template.uriTemplate} | ${template.name}${template.description ? ` — ${template.description}` : ''}`,
      ),
  ];
  return lines.length > 0 ? lines.join('\n') : 'No resources are available.';
}

/**
 * The host's own server, `host`: `host__list_resources` and `host__read_resource` over every connected
 * server's resources. An ordinary local connection, so calls take the same path as any other tool.
 */
export function hostConnection(source: ResourceSource): LocalConnection {
  const local: LocalServer = {
    tools: resourceTools,
    async call(tool, args, context) {
      if (tool === 'list_resources')
        return text(listing(source, typeof args.server === 'string' ? args.server : undefined));
      const server = typeof args.server === 'string' ? args.server : '';
      const uri = typeof args.uri === 'string' ? args.uri : '';
      if (!server || !uri) return text('read_resource needs "server" and "uri" (see list_resources)', true);
      if (appView(uri))
        return text(
          `${uri} is an app's view (MCP Apps): it is shown to people, not read into a conversation`,
          true,
        );
      const outcome = await source.readResource(server, uri, {
        signal: context.signal,
        timeoutMs: context.timeoutMs,
        tokens: context.tokens,
      });
      return text(outcome.text, outcome.isError);
    },
  };
  return hostLocalConnection(local, []);
}

/** A local connection of the host's own server, `host`, offering `tools` to the tool index. */
export function hostLocalConnection(local: LocalServer, tools: LocalServer['tools']): LocalConnection {
  const config: BuiltinServerConfig = {
    name: hostServerName,
    transport: 'builtin',
    tools: [],
    timeoutMs: 30_000,
    disabled: false,
  };
  return {
    kind: 'local',
    config,
    state: 'connected',
    local,
    tools,
    resources: [],
    resourceTemplates: [],
    prompts: [],
    toolName: (tool) => `${hostServerName}__${tool}`,
  };
}

/** The host's settings resource: the app's settings (models, limits, budgets) and the view's servers. */
export const settingsResource: ResourceEntry = {
  server: hostServerName,
  uri: 'host://settings',
  name: 'settings',
  description:
    'How this assistant is set up for you: its model, its limits and budgets, your servers (no secrets)',
  mimeType: 'application/json',
};
