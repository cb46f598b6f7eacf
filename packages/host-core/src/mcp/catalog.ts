import type { Connection } from './connection.js';
import type { PromptEntry, ResourceEntry, ResourceTemplateEntry } from './manager-types.js';

/**
 * An MCP Apps view (`ui://…`): HTML and script for an app's page, never text for a model to read
 * (server-pdf's is 4.3 MB of minified JavaScript).
 */
export const appView = (uri: string) => uri.startsWith('ui://');

/** The resources of these connections (an app's view aside). */
export function resourcesOf(connections: Connection[]): ResourceEntry[] {
  return connections.flatMap((connection) =>
    connection.resources
      .filter((resource) => !appView(resource.uri))
      .map((resource) => ({
        server: connection.config.name,
        uri: resource.uri,
        name: resource.title ?? resource.name,
        ...(resource.description ? { description: resource.description } : {}),
        ...(resource.mimeType ? { mimeType: resource.mimeType } : {}),
      })),
  );
}

/** The resource templates of these connections (an app's views aside). */
export function templatesOf(connections: Connection[]): ResourceTemplateEntry[] {
  return connections.flatMap((connection) =>
    connection.resourceTemplates
      .filter((template) => !appView(template.uriTemplate))
      .map((template) => ({
        server: connection.config.name,
        uriTemplate: template.uriTemplate,
        name: template.title ?? template.name,
        ...(template.description ? { description: template.description } : {}),
      })),
  );
}

/** The prompts of these connections, with their arguments. */
export function promptsOf(connections: Connection[]): PromptEntry[] {
  return connections.flatMap((connection) =>
    connection.prompts.map((prompt) => ({
      server: connection.config.name,
      name: prompt.name,
      ...(prompt.title ? { title: prompt.title } : {}),
      ...(prompt.description ? { description: prompt.description } : {}),
      arguments: (prompt.arguments ?? []).map((argument) => ({
        name: argument.name,
        ...(argument.description ? { description: argument.description } : {}),
        ...(argument.required ? { required: true } : {}),
      })),
    })),
  );
}

/**
 * Servers that have resources, or may link to some (they declare the capability and list none): the
 * resource tools' reach. A server whose only resources are App views has nothing for a model to read.
 */
export function resourceServersOf(connected: Connection[]): string[] {
  return connected
    .filter((connection) => {
      const listed = [
        ...connection.resources.map((resource) => resource.uri),
        ...connection.resourceTemplates.map((template) => template.uriTemplate),
      ];
      if (listed.some((uri) => !appView(uri))) return true;
      return (
        listed.length === 0 &&
        connection.kind === 'mcp' &&
        connection.client?.getServerCapabilities()?.resources !== undefined
      );
    })
    .map((connection) => connection.config.name);
}
