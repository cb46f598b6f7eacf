import type { Connection } from './connection.js';
import type { PromptEntry, ResourceEntry, ResourceTemplateEntry } from './manager-types.js';

/** The resources of these connections. */
export function resourcesOf(connections: Connection[]): ResourceEntry[] {
  return connections.flatMap((connection) =>
    connection.resources.map((resource) => ({
      server: connection.config.name,
      uri: resource.uri,
      name: resource.title ?? resource.name,
      ...(resource.description ? { description: resource.description } : {}),
      ...(resource.mimeType ? { mimeType: resource.mimeType } : {}),
    })),
  );
}

/** The resource templates of these connections. */
export function templatesOf(connections: Connection[]): ResourceTemplateEntry[] {
  return connections.flatMap((connection) =>
    connection.resourceTemplates.map((template) => ({
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

/** Servers that have resources, or may link to some (they declare the capability): the resource tools' reach. */
export function resourceServersOf(connected: Connection[]): string[] {
  return connected
    .filter(
      (connection) =>
        connection.resources.length > 0 ||
        connection.resourceTemplates.length > 0 ||
        (connection.kind === 'mcp' && connection.client?.getServerCapabilities()?.resources !== undefined),
    )
    .map((connection) => connection.config.name);
}
