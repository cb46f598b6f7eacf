import { HostError } from '@ai-assistant/chat-types';
import type { Tool } from '@modelcontextprotocol/client';
import type { BuiltinServerConfig, OpenApiServerConfig } from '../config/mcp-config.js';
import { guardedAgent } from '../net/address-guard.js';
import { builtinTools } from '../tools/builtin-tools.js';
import { callOperation } from '../tools/openapi-call.js';
import { checkArguments } from '../tools/validate-arguments.js';
import type { RawToolResult } from './format-tool-result.js';
import { fillHeaders, type RequestTokens } from './header-templates.js';

/** Per-call context of a local tool. */
export interface LocalCallContext {
  signal: AbortSignal;
  timeoutMs: number;
  tokens: RequestTokens;
  /** Registers credentials this call sends (in their final form) with the host's redactor. */
  secrets?: (values: string[]) => void;
}

/** A server that lives inside the host (no process, or only an HTTP API behind it). */
export interface LocalServer {
  tools: Tool[];
  call(tool: string, args: Record<string, unknown>, context: LocalCallContext): Promise<RawToolResult>;
}

/** Placeholders a request could not fill: the tool needs credentials nobody supplied. */
export class MissingCredentialsError extends HostError {
  override name = 'MissingCredentialsError';
  constructor(readonly placeholders: string[]) {
    super(
      'MISSING_CREDENTIALS',
      `needs credentials that were not supplied: ${placeholders.map((name) => `\${${name}}`).join(', ')}`,
    );
  }
}

const text = (value: string, isError = false): RawToolResult => ({
  content: [{ type: 'text', text: value }],
  isError,
});

/** Builtin tools: what the config declares is what the model sees; arguments are checked first. */
export function builtinServer(config: BuiltinServerConfig, now: () => Date): LocalServer {
  const tools = config.tools.map((declared) => {
    const implementation = builtinTools[declared.name];
    if (!implementation) throw new Error(`no builtin tool "${declared.name}"`);
    return {
      name: declared.name,
      description: declared.description ?? implementation.description,
      inputSchema: (declared.inputSchema ?? implementation.inputSchema) as Tool['inputSchema'],
      // The host's own tools look things up; none changes anything.
      annotations: { readOnlyHint: true, openWorldHint: false },
    };
  });
  return {
    tools,
    async call(name, args) {
      const tool = tools.find((candidate) => candidate.name === name);
      const implementation = builtinTools[name];
      if (!tool || !implementation) return text(`unknown builtin tool "${name}"`, true);
      const problem = checkArguments(args, tool.inputSchema as Record<string, unknown>);
      if (problem) return text(`invalid arguments: ${problem}`, true);
      try {
        return text(implementation.run(args, { now }));
      } catch (error) {
        return text((error as Error).message, true);
      }
    },
  };
}

/**
 * MCP hints for an HTTP method: GET and HEAD read; PUT and DELETE are idempotent and destructive;
 * POST and PATCH are destructive. Every operation reaches an outside API (open world).
 */
export function methodHints(method: string): NonNullable<Tool['annotations']> {
  switch (method.toUpperCase()) {
    case 'GET':
    case 'HEAD':
    case 'OPTIONS':
      return { readOnlyHint: true, openWorldHint: true };
    case 'PUT':
    case 'DELETE':
      return { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true };
    default:
      return { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
  }
}

/** An OpenAPI document's operations (read once at config load) as tools, called over HTTP with undici. */
export function openApiServer(
  config: OpenApiServerConfig,
  env: NodeJS.ProcessEnv,
  warn: (message: string) => void,
): LocalServer {
  const { operations, warnings } = config.api;
  for (const warning of warnings) warn(warning);
  return {
    tools: operations.map((operation) => ({
      name: operation.name,
      description: operation.description,
      inputSchema: operation.inputSchema as Tool['inputSchema'],
      annotations: methodHints(operation.method),
    })),
    async call(name, args, context) {
      const operation = operations.find((candidate) => candidate.name === name);
      if (!operation) return text(`unknown operation "${name}"`, true);
      const { placement } = operation;
      const basic =
        placement.basic === undefined
          ? undefined
          : fillHeaders({ basic: placement.basic }, context.tokens, env);
      const headers = fillHeaders({ ...config.headers, ...placement.headers }, context.tokens, env);
      const query = fillHeaders(placement.query, context.tokens, env);
      const missing = [...headers.missing, ...query.missing, ...(basic?.missing ?? [])];
      if (missing.length > 0) throw new MissingCredentialsError(missing);
      if (basic?.headers.basic !== undefined)
        headers.headers.Authorization = `Basic ${Buffer.from(basic.headers.basic).toString('base64')}`;
      // Whatever the server quotes back of these (a 403 echoing Authorization) is then redacted.
      context.secrets?.([...Object.values(headers.headers), ...Object.values(query.headers)]);
      const result = await callOperation(operation, args, {
        baseUrl: config.baseUrl,
        headers: headers.headers,
        query: query.headers,
        timeoutMs: context.timeoutMs,
        signal: context.signal,
        maxResponseBytes: config.maxResponseBytes,
        ...(config.publicAddressesOnly
          ? {
              guard: {
                allow: config.publicAddressesOnly,
                dispatcher: await guardedAgent(config.publicAddressesOnly),
              },
            }
          : {}),
      });
      return text(result.text, result.isError);
    },
  };
}
