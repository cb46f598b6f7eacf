import type { JsonSchema } from '@ai-assistant/chat-types';
import { HostError } from '@ai-assistant/chat-types';

/** An OpenAPI document that cannot be used; `pointer` is the JSON pointer of the problem. */
export class OpenApiSpecError extends HostError {
  override name = 'OpenApiSpecError';
  constructor(
    readonly pointer: string,
    message: string,
  ) {
    super('OPENAPI_SPEC_INVALID', `${pointer}: ${message}`);
  }
}

type Node = Record<string, unknown>;
type Location = 'path' | 'query' | 'header';

/** One operation turned into a tool. */
export interface OpenApiOperation {
  name: string;
  description: string;
  method: string;
  path: string;
  inputSchema: JsonSchema;
  parameters: Array<{ argument: string; name: string; in: Location }>;
  /** Security schemes this operation accepts (its own `security`, else the document's). */
  security: string[];
  /** Body properties by argument name, or the whole body under one argument. */
  body?:
    | { kind: 'properties'; fields: Array<{ argument: string; name: string }> }
    | { kind: 'whole'; argument: string };
}

/** Where `${…}`-bearing values go on each request, per security scheme. */
export interface SecurityPlacement {
  headers: Record<string, string>;
  query: Record<string, string>;
  /** HTTP Basic: the `user:password` template, sent as `Authorization: Basic base64(filled value)`. */
  basic?: string;
}

const methods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
const escapePointer = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');

function resolve(root: Node, value: unknown, pointer: string, depth = 0): unknown {
  if (Array.isArray(value))
    return value.map((item, index) => resolve(root, item, `${pointer}/${index}`, depth + 1));
  if (!value || typeof value !== 'object') return value;
  if (depth > 40) return {}; // a recursive $ref: stop expanding
  let node = value as Node;
  if (typeof node.$ref === 'string') {
    const reference = node.$ref;
    if (!reference.startsWith('#/'))
      throw new OpenApiSpecError(
        `${pointer}/$ref`,
        `only local references are supported, not "${reference}"`,
      );
    let target: unknown = root;
    for (const part of reference.slice(2).split('/'))
      target = (target as Node | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (!target || typeof target !== 'object')
      throw new OpenApiSpecError(`${pointer}/$ref`, `"${reference}" does not point at anything`);
    const { $ref: _reference, ...rest } = node;
    node = { ...(target as Node), ...rest };
  }
  return Object.fromEntries(
    Object.entries(node).map(([key, item]) => [
      key,
      resolve(root, item, `${pointer}/${escapePointer(key)}`, depth + 1),
    ]),
  );
}

function toolName(method: string, path: string, operationId: unknown): string {
  if (typeof operationId === 'string' && operationId.trim()) return operationId.trim();
  const segments = path
    .split('/')
    .filter(Boolean)
    .map((segment) => segment.replace(/[{}]/g, ''));
  return [method, ...segments].join('_').replace(/[^A-Za-z0-9_-]/g, '_');
}

/**
 * Turns an OpenAPI 3.0/3.1 JSON document into one tool per path and method. Local `$ref`s are
 * resolved; path, query and header parameters and the JSON body's properties merge into one object
 * schema (clashing names get a `_query`/`_header`/`_body` suffix). Operations that need a non-JSON
 * body are skipped with a warning; cookie parameters and callbacks are ignored with a warning.
 */
export function openApiOperations(spec: unknown, warn: (message: string) => void): OpenApiOperation[] {
  if (!spec || typeof spec !== 'object' || Array.isArray(spec))
    throw new OpenApiSpecError('', 'expected a JSON object');
  const root = spec as Node;
  if (typeof root.openapi !== 'string' || !/^3\.[01]\./.test(root.openapi)) {
    throw new OpenApiSpecError('/openapi', 'expected an OpenAPI version string "3.0.x" or "3.1.x"');
  }
  if (!root.paths || typeof root.paths !== 'object' || Array.isArray(root.paths)) {
    throw new OpenApiSpecError('/paths', 'expected an object of paths');
  }
  const operations: OpenApiOperation[] = [];
  for (const [path, rawItem] of Object.entries(root.paths as Node)) {
    const itemPointer = `/paths/${escapePointer(path)}`;
    if (!rawItem || typeof rawItem !== 'object')
      throw new OpenApiSpecError(itemPointer, 'expected a path item object');
    const item = resolve(root, rawItem, itemPointer) as Node;
    for (const method of methods) {
      const operation = item[method] as Node | undefined;
      if (operation === undefined) continue;
      const pointer = `${itemPointer}/${method}`;
      if (!operation || typeof operation !== 'object')
        throw new OpenApiSpecError(pointer, 'expected an operation object');
      const name = toolName(method, path, operation.operationId);
      if (operation.callbacks) warn(`${name}: callbacks are ignored`);
      const properties: Record<string, unknown> = {};
      const required: string[] = [];
      const parameters: OpenApiOperation['parameters'] = [];
      const taken = new Set<string>();
      const claim = (wanted: string, suffix: string) => {
        const argument = taken.has(wanted) ? `${wanted}_${suffix}` : wanted;
        taken.add(argument);
        return argument;
      };
      const declared = [
        ...((item.parameters as Node[] | undefined) ?? []),
        ...((operation.parameters as Node[] | undefined) ?? []),
      ];
      // Operation-level parameters override path-level ones of the same name and place.
      const unique = new Map(
        declared.map((parameter) => [`${String(parameter.in)}:${String(parameter.name)}`, parameter]),
      );
      for (const parameter of unique.values()) {
        const location = parameter.in;
        if (location === 'cookie') {
          warn(`${name}: cookie parameter "${String(parameter.name)}" is ignored`);
          continue;
        }
        if (location !== 'path' && location !== 'query' && location !== 'header') {
          throw new OpenApiSpecError(
            pointer,
            `parameter "${String(parameter.name)}" has an unknown "in": ${JSON.stringify(location)}`,
          );
        }
        const argument = claim(String(parameter.name), location);
        parameters.push({ argument, name: String(parameter.name), in: location });
        properties[argument] = {
          ...((parameter.schema as Node | undefined) ?? { type: 'string' }),
          ...(parameter.description ? { description: parameter.description } : {}),
        };
        if (parameter.required === true || location === 'path') required.push(argument);
      }
      let body: OpenApiOperation['body'];
      const requestBody = operation.requestBody as Node | undefined;
      if (requestBody) {
        const content = (requestBody.content ?? {}) as Record<string, Node>;
        const jsonType = Object.keys(content).find((type) => /^application\/(.+\+)?json/.test(type));
        if (!jsonType) {
          warn(
            `${name}: skipped, its request body is not JSON (${Object.keys(content).join(', ') || 'no content'})`,
          );
          continue;
        }
        const schema = (content[jsonType]?.schema ?? {}) as Node;
        if (schema.type === 'object' || schema.properties) {
          const fields: Array<{ argument: string; name: string }> = [];
          const bodyRequired = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
          for (const [property, propertySchema] of Object.entries((schema.properties ?? {}) as Node)) {
            const argument = claim(property, 'body');
            fields.push({ argument, name: property });
            properties[argument] = propertySchema;
            if (requestBody.required === true && bodyRequired.has(property)) required.push(argument);
          }
          body = { kind: 'properties', fields };
        } else {
          const argument = claim('body', 'body');
          properties[argument] = schema;
          if (requestBody.required === true) required.push(argument);
          body = { kind: 'whole', argument };
        }
      }
      const requirements = (operation.security ?? root.security ?? []) as Array<Record<string, unknown>>;
      const security = [...new Set(requirements.flatMap((requirement) => Object.keys(requirement)))];
      const summary = [operation.summary, operation.description].filter(
        (text) => typeof text === 'string' && text.trim(),
      );
      operations.push({
        name,
        description: summary.length > 0 ? summary.join('\n\n') : `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        inputSchema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}) },
        parameters,
        security,
        ...(body ? { body } : {}),
      });
    }
  }
  return operations;
}

/** An OpenAPI document read once: its operations, each with where its credentials go. */
export interface CompiledOpenApi {
  operations: Array<OpenApiOperation & { placement: SecurityPlacement }>;
  /** What was left out of the document (non-JSON bodies, cookie parameters, callbacks). */
  warnings: string[];
}

/** Reads an OpenAPI document once; throws {@link OpenApiSpecError} (with its JSON pointer) when unusable. */
export function compileOpenApi(spec: unknown, security: Record<string, string>): CompiledOpenApi {
  const warnings: string[] = [];
  const operations = openApiOperations(spec, (message) => warnings.push(message));
  placeSecurity(spec, security); // every configured scheme must exist in the document
  return {
    operations: operations.map((operation) => ({
      ...operation,
      // Each operation sends only the credentials of the schemes it declares.
      placement: placeSecurity(spec, security, operation.security),
    })),
    warnings,
  };
}

/**
 * Where configured security values go: `security` maps a scheme name of the document to a value
 * (templates allowed). apiKey → its header or query parameter; http bearer → `Authorization:
 * Bearer …`; http basic → `Authorization: Basic base64(value)` where value is `user:password`.
 */
export function placeSecurity(
  spec: unknown,
  security: Record<string, string>,
  only?: string[],
): SecurityPlacement {
  const schemes = (((spec as Node).components as Node | undefined)?.securitySchemes ?? {}) as Record<
    string,
    Node
  >;
  const placement: SecurityPlacement = { headers: {}, query: {} };
  for (const [scheme, value] of Object.entries(security)) {
    if (only && !only.includes(scheme)) continue;
    const definition = schemes[scheme];
    if (!definition)
      throw new OpenApiSpecError(
        `/components/securitySchemes/${escapePointer(scheme)}`,
        'no such security scheme in the document',
      );
    if (definition.type === 'apiKey' && definition.in === 'header')
      placement.headers[String(definition.name)] = value;
    else if (definition.type === 'apiKey' && definition.in === 'query')
      placement.query[String(definition.name)] = value;
    else if (definition.type === 'http' && String(definition.scheme).toLowerCase() === 'bearer')
      placement.headers.Authorization = `Bearer ${value}`;
    else if (definition.type === 'http' && String(definition.scheme).toLowerCase() === 'basic')
      placement.basic = value;
    else
      throw new OpenApiSpecError(
        `/components/securitySchemes/${escapePointer(scheme)}`,
        `scheme type ${String(definition.type)} is not supported`,
      );
  }
  return placement;
}
