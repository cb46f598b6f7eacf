import type { JsonSchema } from '@ai-assistant/chat-types';

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function matches(expected: unknown, actual: string): boolean {
  const allowed = Array.isArray(expected) ? expected : [expected];
  return allowed.some((type) => type === actual || (type === 'number' && actual === 'integer'));
}

/**
 * A shallow check of tool arguments against the tool's JSON Schema: required properties present, no
 * property the schema does not define, and top-level types right. Returns a message the model can act on, or undefined when they look fine.
 * The server validates fully; this catches the common mistakes before a round trip.
 */
export function checkArguments(args: Record<string, unknown>, schema: JsonSchema): string | undefined {
  const properties = (schema.properties ?? {}) as Record<string, { type?: unknown }>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const missing = required.filter((name) => args[name] === undefined);
  if (missing.length > 0) return `missing required argument(s): ${missing.join(', ')}`;
  // An argument the schema does not define would reach the server unseen by its checks (and, before a
  // write, unasked of the person): refused, unless the schema says extra properties are welcome.
  const extrasWelcome =
    schema.properties === undefined ||
    schema.patternProperties !== undefined ||
    (schema.additionalProperties !== undefined && schema.additionalProperties !== false);
  if (!extrasWelcome) {
    const unknown = Object.keys(args).filter((name) => !Object.hasOwn(properties, name));
    if (unknown.length > 0)
      return `unknown argument(s) ${unknown.join(', ')}: this tool takes only ${Object.keys(properties).join(', ') || 'no arguments'}`;
  }
  for (const [name, value] of Object.entries(args)) {
    const expected = properties[name]?.type;
    if (expected !== undefined && value !== undefined && !matches(expected, typeOf(value))) {
      return `argument "${name}" must be ${Array.isArray(expected) ? expected.join(' or ') : String(expected)}, got ${typeOf(value)}`;
    }
  }
  return undefined;
}

/** The first required string parameter of a schema: where auto-context puts the user's message. */
export function firstRequiredString(schema: JsonSchema): string | undefined {
  const properties = (schema.properties ?? {}) as Record<string, { type?: unknown }>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  return (
    required.find((name) => properties[name]?.type === 'string') ??
    Object.keys(properties).find((name) => properties[name]?.type === 'string')
  );
}
