import type { JsonSchema, Logger, ToolDefinition } from '@ai-assistant/chat-types';

/** Keywords no vendor wants in a tool schema. */
const alwaysDropped = ['$schema', '$id', '$comment', '$defs', 'definitions'];

/** Options of {@link compileToolSchema}. */
export interface CompileOptions {
  /** Extra keywords this provider rejects. */
  drop?: string[];
}

type Node = Record<string, unknown>;

function resolveReference(root: Node, reference: string): Node | undefined {
  if (reference === '#') return root;
  if (!reference.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const part of reference.slice(2).split('/')) {
    node = (node as Node | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node && typeof node === 'object' ? (node as Node) : undefined;
}

function compileNode(node: unknown, root: Node, dropped: Set<string>, depth: number): unknown {
  if (Array.isArray(node)) return node.map((item) => compileNode(item, root, dropped, depth));
  if (!node || typeof node !== 'object') return node;
  if (depth > 32) return {}; // a recursive $ref: stop expanding, accept anything there
  let source = node as Node;
  if (typeof source.$ref === 'string') {
    const target = resolveReference(root, source.$ref);
    if (!target) throw new Error(`unresolvable $ref ${source.$ref}`);
    const { $ref: _reference, ...rest } = source;
    source = { ...target, ...rest };
  }
  const result: Node = {};
  for (const [key, value] of Object.entries(source)) {
    if (dropped.has(key)) continue;
    // Keys of `properties` are names, not keywords: compile their values only.
    result[key] =
      key === 'properties' && value && typeof value === 'object'
        ? Object.fromEntries(
            Object.entries(value as Node).map(([name, child]) => [
              name,
              compileNode(child, root, dropped, depth + 1),
            ]),
          )
        : compileNode(value, root, dropped, depth + 1);
  }
  const types = Array.isArray(result.type) ? result.type : [result.type];
  if (types.includes('array') && result.items === undefined) result.items = {};
  return result;
}

/**
 * Makes a tool's JSON Schema acceptable to a vendor: local `$ref`s inlined, `$defs` removed,
 * arrays given `items`, the top level an object schema, rejected keywords dropped. Throws when the
 * schema cannot be expressed (e.g. a top level that is not an object).
 */
export function compileToolSchema(schema: JsonSchema, options: CompileOptions = {}): JsonSchema {
  const dropped = new Set([...alwaysDropped, ...(options.drop ?? [])]);
  const compiled = compileNode(schema ?? {}, schema ?? {}, dropped, 0) as Node;
  if (compiled.type === undefined && compiled.anyOf === undefined && compiled.oneOf === undefined)
    compiled.type = 'object';
  if (compiled.type !== 'object')
    throw new Error(
      `the top level must be an object schema, not ${JSON.stringify(compiled.type ?? 'anyOf/oneOf')}`,
    );
  if (compiled.properties === undefined) compiled.properties = {};
  return compiled;
}

/** A warning sink, called once per tool that had to be left out. */
export type SchemaWarning = (toolName: string, reason: string) => void;

/** Compiles every tool's schema; tools that cannot be expressed are left out with one warning each. */
export function compileTools(
  tools: ToolDefinition[],
  options: CompileOptions,
  warn: SchemaWarning,
): ToolDefinition[] {
  return tools.flatMap((tool) => {
    try {
      return [{ ...tool, inputSchema: compileToolSchema(tool.inputSchema, options) }];
    } catch (error) {
      warn(tool.name, (error as Error).message);
      return [];
    }
  });
}

/** A {@link SchemaWarning} that logs each left-out tool once per provider instance. */
export function warnOncePerTool(provider: string, logger: Logger | undefined): SchemaWarning {
  const warned = new Set<string>();
  return (tool, reason) => {
    if (warned.has(tool)) return;
    warned.add(tool);
    logger?.warn(
      { provider, tool, reason },
      'tool left out: its input schema cannot be sent to this provider',
    );
  };
}
