import { HostError } from '@ai-assistant/chat-types';
import { z } from 'zod';
import type { TransportKind } from './mcp-config.js';

// The shape of one `mcpServers` entry: fields, their accepted aliases, and the words an error uses.

/**
 * A configuration file that cannot be used; the message names file, server and field. `problems` lists
 * every problem found in one reading (the message is them, one a line).
 */
export class McpConfigError extends HostError {
  override name = 'McpConfigError';
  readonly problems: string[];
  constructor(message: string, options?: { cause?: unknown; problems?: string[] }) {
    const problems = options?.problems?.length ? options.problems : [message];
    super('MCP_CONFIG_INVALID', problems.length > 1 ? problems.join('\n') : message, options);
    this.problems = problems;
  }

  /** One error carrying every problem of `errors` (several configuration errors found in one reading). */
  static of(errors: McpConfigError[]): McpConfigError {
    const problems = errors.flatMap((error) => error.problems);
    return new McpConfigError(problems[0] ?? 'invalid configuration', { problems });
  }
}

/**
 * Runs each check and gathers the configuration errors they throw, so that one reading reports every
 * problem; any other error passes through. Returns the checks' results when none failed.
 */
export function everyProblem<T>(checks: Array<() => T>): T[] {
  const failures: McpConfigError[] = [];
  const results: T[] = [];
  for (const check of checks) {
    try {
      results.push(check());
    } catch (error) {
      if (!(error instanceof McpConfigError)) throw error;
      failures.push(error);
    }
  }
  if (failures.length > 0) throw McpConfigError.of(failures);
  return results;
}

/** Default per-call tool timeout. */
export const defaultToolTimeoutMs = 30_000;
/** Default hard maximum of one call whose progress keeps resetting its timeout (10 minutes). */
export const defaultMaxToolTimeoutMs = 600_000;
/** Default time a server started on first use lives with no call (10 minutes). */
export const defaultIdleStopMs = 600_000;
/** Node's timers overflow past 2³¹−1 ms (and then fire after 1 ms), so no timeout may be longer. */
const maxTimeoutMs = 2_147_483_647;

/**
 * The entry schema, built on first use: zod builds a schema's internals eagerly, and a host that
 * never parses a file (an app given its servers in code) should not pay for it at import.
 */
function buildServerSchema() {
  const stringMap = z.record(z.string(), z.string());
  return z.object({
    transport: z.string().optional(),
    type: z.string().optional(),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: stringMap.optional(),
    cwd: z.string().min(1).optional(),
    url: z.string().min(1).optional(),
    headers: stringMap.optional(),
    allowed_tools: z.array(z.string()).optional(),
    timeout_ms: z.number().int().positive().max(maxTimeoutMs).optional(),
    max_timeout_ms: z.number().int().positive().max(maxTimeoutMs).optional(),
    startup_timeout_ms: z.number().int().positive().max(maxTimeoutMs).optional(),
    start: z.enum(['at_startup', 'on_first_use']).optional(),
    idle_stop_ms: z.number().int().positive().max(maxTimeoutMs).optional(),
    max_response_bytes: z.number().int().positive().optional(),
    status_message: z.string().min(1).max(200).optional(),
    restart: z.enum(['on-failure', 'never']).optional(),
    approval: z.union([z.enum(['auto', 'writes', 'always']), z.array(z.string().min(1))]).optional(),
    system_instruction: z.string().optional(),
    response_instruction: z.string().optional(),
    auto_context_tool: z.string().min(1).optional(),
    disabled: z.boolean().optional(),
    connection: z.enum(['shared', 'per_user']).optional(),
    credential_help: z.string().min(1).max(500).optional(),
    enabled_by_default: z.boolean().optional(),
    server_instructions: z.boolean().optional(),
    roots: z.array(z.string().min(1)).optional(),
    protocol_version: z.enum(['auto', '2025-11-25', '2026-07-28']).optional(),
    log_level: z
      .enum(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'])
      .optional(),
    tools: z
      .array(
        z.object({
          name: z.string().min(1),
          description: z.string().optional(),
          input_schema: z.record(z.string(), z.unknown()).optional(),
        }),
      )
      .optional(),
    openapi_spec: z.union([z.string().min(1), z.record(z.string(), z.unknown())]).optional(),
    openapi_base_url: z.string().min(1).optional(),
    security: stringMap.optional(),
    oauth: z
      .union([
        z.boolean(),
        z
          .object({
            grant: z.enum(['authorization_code', 'client_credentials']).optional(),
            client_id: z.string().min(1).optional(),
            client_secret: z.string().min(1).optional(),
            private_key: z.string().min(1).optional(),
            signing_algorithm: z.string().min(1).optional(),
            scope: z.string().min(1).optional(),
            issuer: z.string().min(1).optional(),
          })
          .strict(),
      ])
      .optional(),
  });
}

let builtServer: ReturnType<typeof buildServerSchema> | undefined;
let builtFile: ReturnType<typeof buildFileSchema> | undefined;
const buildFileSchema = () => z.object({ mcpServers: z.record(z.string(), z.unknown()) });

/** One server entry as the file may write it (before aliases and defaults are resolved). */
export type RawEntry = z.infer<ReturnType<typeof buildServerSchema>>;

/** The schema of one server entry. */
export function serverSchema(): ReturnType<typeof buildServerSchema> {
  builtServer ??= buildServerSchema();
  return builtServer;
}

/** The schema of the file: `mcpServers`, an object of entries. */
export function fileSchema(): ReturnType<typeof buildFileSchema> {
  builtFile ??= buildFileSchema();
  return builtFile;
}

// What each field must hold, in words a person fixing the file can use.
export const expectations: Record<string, string> = {
  transport: 'one of "stdio", "http", "sse", "builtin", "openapi"',
  type: 'one of "stdio", "http", "sse", "builtin", "openapi"',
  command: 'a non-empty string (the program to start)',
  args: 'an array of strings',
  env: 'an object whose values are strings',
  cwd: 'a non-empty string (a folder, relative to the config file)',
  url: 'a non-empty string (an http:// or https:// URL)',
  headers: 'an object whose values are strings',
  allowed_tools: 'an array of tool names (strings)',
  timeout_ms: `a positive whole number of milliseconds, at most ${maxTimeoutMs} (about 24.8 days)`,
  max_timeout_ms: `a positive whole number of milliseconds, at least timeout_ms and at most ${maxTimeoutMs}`,
  startup_timeout_ms: `a positive whole number of milliseconds, at most ${maxTimeoutMs}`,
  start:
    '"at_startup" (the default: the server starts with the host) or "on_first_use" (a stdio server starts when a call needs it and stops after idle_stop_ms)',
  idle_stop_ms: `a positive whole number of milliseconds, at most ${maxTimeoutMs}: how long a server started on first use lives with no call (default ${defaultIdleStopMs})`,
  max_response_bytes: 'a positive whole number of bytes',
  roots: 'an array of folders (relative to the config file) or file:// URIs the server may work in',
  protocol_version:
    '"auto" (the default: ask with server/discover, fall back to initialize), "2025-11-25" (initialize at once; a stdio server then starts once instead of twice) or "2026-07-28" (that revision or nothing)',
  log_level:
    'one of "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency" (sent with logging/setLevel)',
  status_message: 'a short text (1–200 characters) shown while a tool of this server runs',
  restart: '"on-failure" (the default: reconnect with backoff) or "never"',
  approval:
    '"auto", "writes" (ask before any tool not marked read-only), "always", or a list of tool names to ask for',
  system_instruction: 'a string',
  response_instruction: 'a string',
  auto_context_tool: 'a non-empty string (a tool name of this server)',
  disabled: 'true or false',
  connection:
    '"shared" (the default: one connection for everyone) or "per_user" (one connection per person, opened with their ${token})',
  credential_help: 'a short text (1–500 characters): where a person creates the token this server needs',
  enabled_by_default:
    'true or false (whether a workspace has this server before an admin enables or disables it)',
  server_instructions:
    'true or false (whether the instructions the server gives at initialize join the system prompt; default true)',
  tools: 'an array of { "name", "description", "input_schema" } objects',
  openapi_spec: 'an OpenAPI 3.x document (an object) or the path of one (a string)',
  openapi_base_url: 'a non-empty string (an http:// or https:// URL)',
  security: 'an object mapping security scheme names to string values',
  oauth:
    'true (each person connects with OAuth) or an object with "grant" ("authorization_code" or "client_credentials"), "client_id", "client_secret", "private_key", "signing_algorithm", "scope", "issuer" (the authorization server that may receive the client\'s credentials)',
};

/**
 * Other spellings accepted on purpose: `headers_template` is the name in the server-types specification;
 * camelCase is what some other hosts' configs use.
 */
const fieldAliases: Record<string, string> = {
  headers_template: 'headers',
  allowedTools: 'allowed_tools',
  timeoutMs: 'timeout_ms',
  maxTimeoutMs: 'max_timeout_ms',
  startupTimeoutMs: 'startup_timeout_ms',
  idleStopMs: 'idle_stop_ms',
  systemInstruction: 'system_instruction',
  responseInstruction: 'response_instruction',
  autoContextTool: 'auto_context_tool',
  credentialHelp: 'credential_help',
  enabledByDefault: 'enabled_by_default',
  serverInstructions: 'server_instructions',
  logLevel: 'log_level',
  protocolVersion: 'protocol_version',
};
/** The entry's field names (the schema's keys), read when a file has a field to check. */
const knownFields = (): string[] => Object.keys(serverSchema().shape);

/** The known field closest to a misspelled one (edit distance ≤ 3, ignoring case and `_`), if any. */
function closestField(field: string): string | undefined {
  const fold = (text: string) => text.toLowerCase().replace(/[_-]/g, '');
  let best: { name: string; distance: number } | undefined;
  for (const name of [...knownFields(), ...Object.keys(fieldAliases)]) {
    const distance = editDistance(fold(field), fold(name));
    if (distance <= 3 && (!best || distance < best.distance))
      best = { name: fieldAliases[name] ?? name, distance };
  }
  return best?.name;
}

function editDistance(left: string, right: string): number {
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let row = 1; row <= left.length; row++) {
    const current = [row];
    for (let column = 1; column <= right.length; column++) {
      const substitution = (previous[column - 1] as number) + (left[row - 1] === right[column - 1] ? 0 : 1);
      current.push(
        Math.min(substitution, (previous[column] as number) + 1, (current[column - 1] as number) + 1),
      );
    }
    previous = current;
  }
  return previous[right.length] as number;
}

/**
 * Maps the accepted aliases to our field names. Unknown fields (each named with the closest known one)
 * are returned as `problems`, and left out of `normalized` so the rest of the entry can still be checked.
 */
export function normalizeFields(
  raw: unknown,
  file: string,
  where: string,
): { normalized: unknown; problems: McpConfigError[] } {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { normalized: raw, problems: [] };
  const normalized: Record<string, unknown> = {};
  const problems: McpConfigError[] = [];
  for (const [field, value] of Object.entries(raw)) {
    const canonical = fieldAliases[field] ?? field;
    if (!knownFields().includes(canonical)) {
      const suggestion = closestField(field);
      problems.push(
        new McpConfigError(
          `${file}: ${where}.${field}: unknown field${suggestion ? `; did you mean "${suggestion}"?` : ''} (known fields: ${knownFields().join(', ')})`,
        ),
      );
      continue;
    }
    if (canonical in normalized) {
      problems.push(
        new McpConfigError(
          `${file}: ${where}.${field}: "${canonical}" is already given; keep one of the two`,
        ),
      );
      continue;
    }
    normalized[canonical] = value;
  }
  return { normalized, problems };
}

export const transportAliases: Record<string, TransportKind | 'builtin' | 'openapi'> = {
  stdio: 'stdio',
  http: 'http',
  'streamable-http': 'http',
  streamableHttp: 'http',
  sse: 'sse',
  builtin: 'builtin',
  openapi: 'openapi',
};
