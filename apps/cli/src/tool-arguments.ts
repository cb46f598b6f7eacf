import type { JsonSchema, ToolDefinition } from '@ai-assistant/host-core';

interface Property {
  type?: unknown;
  description?: unknown;
  enum?: unknown[];
  default?: unknown;
  examples?: unknown[];
}

/** A tool's arguments in the order its schema lists them, each with whether it is required. */
function argumentsOf(schema: JsonSchema): Array<{ name: string; property: Property; required: boolean }> {
  const properties = (schema.properties ?? {}) as Record<string, Property>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    property,
    required: required.has(name),
  }));
}

/** `(location*, date)`: the arguments' names, `*` marking the required ones; empty when it takes none. */
export function argumentNames(tool: ToolDefinition): string {
  const list = argumentsOf(tool.inputSchema).map(
    (argument) => `${argument.name}${argument.required ? '*' : ''}`,
  );
  return list.length > 0 ? ` (${list.join(', ')})` : '';
}

const typeName = (property: Property) =>
  Array.isArray(property.type) ? property.type.join(' or ') : String(property.type ?? 'any');

/** A value of the property's kind for an example call: its first example, default or allowed value. */
function sampleOf(property: Property): unknown {
  if (Array.isArray(property.examples) && property.examples.length > 0) return property.examples[0];
  if (property.default !== undefined) return property.default;
  if (Array.isArray(property.enum) && property.enum.length > 0) return property.enum[0];
  const type = Array.isArray(property.type) ? property.type[0] : property.type;
  switch (type) {
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return '…';
  }
}

/**
 * What a tool takes, for a person who called it wrongly: one line per argument (name, type, required or
 * optional, the first line of its description) and an example call with the required arguments.
 */
export function expectedArguments(tool: ToolDefinition): string {
  const list = argumentsOf(tool.inputSchema);
  if (list.length === 0) return `${tool.name} takes no arguments.\nExample: /call ${tool.name} {}`;
  const width = Math.max(...list.map((argument) => argument.name.length));
  const lines = list.map(({ name, property, required }) => {
    const description =
      typeof property.description === 'string' ? ` — ${property.description.split('\n')[0]}` : '';
    return `  ${name.padEnd(width)}  ${typeName(property)}, ${required ? 'required' : 'optional'}${description}`;
  });
  // The required arguments; a tool with none shows its first, so the example still shows the shape.
  const shown = list.filter((argument) => argument.required);
  const example = (shown.length > 0 ? shown : list.slice(0, 1))
    .map(({ name, property }) => `${JSON.stringify(name)}: ${JSON.stringify(sampleOf(property))}`)
    .join(', ');
  return `${tool.name} takes:\n${lines.join('\n')}\nExample: /call ${tool.name} {${example}}`;
}
