import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { builtinTools } from '../tools/builtin-tools.js';
import { type CompiledOpenApi, compileOpenApi, OpenApiSpecError } from '../tools/openapi-tools.js';
import type { JsonSchema } from '../types.js';
import {
  defaultToolTimeoutMs,
  expectations,
  fileSchema,
  McpConfigError,
  normalizeFields,
  serverSchema,
  transportAliases,
} from './config-schema.js';

/** The kinds of server the host can use. */
export type TransportKind = 'stdio' | 'http' | 'sse' | 'builtin' | 'openapi';

interface CommonServerConfig {
  name: string;
  allowedTools?: string[];
  timeoutMs: number;
  systemInstruction?: string;
  responseInstruction?: string;
  autoContextTool?: string;
  /** Largest HTTP response body read from this server (http, sse, openapi). */
  maxResponseBytes?: number;
  /** Shown to people while one of this server's tools runs (e.g. "🌤️ 天気を調べています…"). */
  statusMessage?: string;
  disabled: boolean;
}

/** A server started as a child process and spoken to over stdin/stdout. */
export interface StdioServerConfig extends CommonServerConfig {
  transport: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

/**
 * A remote server over Streamable HTTP or legacy SSE. `headers` values may hold `${name}`
 * placeholders, filled per request from the caller's tokens, then the environment.
 */
export interface RemoteServerConfig extends CommonServerConfig {
  transport: 'http' | 'sse';
  url: string;
  headers: Record<string, string>;
}

/** Tools implemented inside the host (see `builtinTools`). */
export interface BuiltinServerConfig extends CommonServerConfig {
  transport: 'builtin';
  tools: Array<{ name: string; description?: string; inputSchema?: JsonSchema }>;
}

/** A REST API described by an OpenAPI 3.x document, offered as tools. */
export interface OpenApiServerConfig extends CommonServerConfig {
  transport: 'openapi';
  /** The document, read once at load: its operations and where their credentials go. */
  api: CompiledOpenApi;
  baseUrl: string;
  /** Header templates, filled per request like a remote server's. */
  headers: Record<string, string>;
  /** Security scheme name → value template (apiKey header/query, http bearer/basic). */
  security: Record<string, string>;
}

/** One validated server entry of `mcpServers`. */
export type ServerConfig = StdioServerConfig | RemoteServerConfig | BuiltinServerConfig | OpenApiServerConfig;

export { defaultToolTimeoutMs, McpConfigError } from './config-schema.js';

/** Whether MCP is switched on: `MCP_ENABLED` is `true`, `1` or `yes`. */
export function isMcpEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return /^(true|1|yes)$/i.test((env.MCP_ENABLED ?? '').trim());
}

/** The config file path: `MCP_SERVERS_CONFIG`, else `config/mcp_servers.json` under `cwd`. */
export function mcpConfigPath(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  return resolve(cwd, env.MCP_SERVERS_CONFIG || 'config/mcp_servers.json');
}

/**
 * Replaces `${NAME}` with the environment's value, and `${NAME:-default}` with the value or, when it is
 * unset or empty, the default; names the first variable that is unset and has no default.
 */
function expand(value: string, env: NodeJS.ProcessEnv, where: string, file: string): string {
  return value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_match, name: string, fallback?: string) => {
      const replacement = env[name];
      if (fallback !== undefined) return replacement ? replacement : fallback;
      if (replacement === undefined) {
        throw new McpConfigError(
          `${file}: ${where}: \${${name}} is not set in the environment; set ${name} or remove it`,
        );
      }
      return replacement;
    },
  );
}

function expandAll(values: Record<string, string>, env: NodeJS.ProcessEnv, where: string, file: string) {
  return Object.fromEntries(
    Object.entries(values).map(([key, value]) => [key, expand(value, env, `${where}.${key}`, file)]),
  );
}

/**
 * Reads and validates an `mcpServers` file (Claude Desktop's format plus our fields). Returns
 * `undefined` when the file does not exist (MCP off). Throws {@link McpConfigError} naming the
 * file, the server and the field, never a value (values may be secrets).
 */
export async function loadMcpConfig(
  path: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ServerConfig[] | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new McpConfigError(
      `${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  const localPath = path.replace(/(\.json)?$/, '.local.json');
  if (localPath === path || !existsSync(localPath)) return parseMcpConfig(text, path, env);
  // A git-ignored overlay beside the file: its entries are merged over the shipped ones, field by field.
  const label = `${path} (with ${localPath})`;
  const [shipped, local] = [
    [text, path],
    [await readFile(localPath, 'utf8'), localPath],
  ].map(([content, where]) => {
    try {
      return JSON.parse((content as string).replace(/^\uFEFF/, '')) as {
        mcpServers?: Record<string, unknown>;
      };
    } catch (error) {
      throw new McpConfigError(`${where}: is not valid JSON (${(error as Error).message})`);
    }
  }) as Array<{ mcpServers?: Record<string, unknown> }>;
  const merged: Record<string, unknown> = { ...shipped?.mcpServers };
  for (const [name, entry] of Object.entries(local?.mcpServers ?? {})) {
    const base = merged[name];
    merged[name] =
      base && typeof base === 'object' && entry && typeof entry === 'object' ? { ...base, ...entry } : entry;
  }
  return parseMcpConfig(
    JSON.stringify({ ...shipped, mcpServers: merged }),
    label,
    env,
    dirname(resolve(path)),
  );
}

/** Validates the text of an `mcpServers` file; see {@link loadMcpConfig}. */
export function parseMcpConfig(
  text: string,
  path: string,
  env: NodeJS.ProcessEnv = process.env,
  /** Folder relative paths are resolved against (default: the config file's). */
  folder?: string,
): ServerConfig[] {
  let json: unknown;
  try {
    // Editors on Windows save UTF-8 with a byte-order mark; JSON.parse would call it a stray token.
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new McpConfigError(`${path}: is not valid JSON (${(error as Error).message})`);
  }
  const file = fileSchema.safeParse(json);
  if (!file.success) {
    throw new McpConfigError(
      `${path}: mcpServers: expected an object mapping server names to their settings`,
    );
  }
  const baseFolder = folder ?? dirname(resolve(path));
  return Object.entries(file.data.mcpServers).map(([name, raw]) => {
    const where = `mcpServers.${name}`;
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) {
      throw new McpConfigError(
        `${path}: ${where}: server names may use letters, digits, "_", "-" and "." (1–64 characters)`,
      );
    }
    const parsed = serverSchema.safeParse(normalizeFields(raw, path, where));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = String(issue?.path[0] ?? '');
      const expected = expectations[field] ?? 'an object of server settings';
      const at = issue?.path.length ? `${where}.${issue.path.join('.')}` : where;
      throw new McpConfigError(`${path}: ${at}: expected ${expected}`);
    }
    const entry = parsed.data;
    const declared = entry.transport ?? entry.type;
    const kind = declared
      ? transportAliases[declared]
      : entry.command
        ? 'stdio'
        : entry.url
          ? 'http'
          : undefined;
    const field = entry.transport !== undefined ? 'transport' : 'type';
    if (declared && !kind)
      throw new McpConfigError(`${path}: ${where}.${field}: expected ${expectations.transport}`);
    if (!kind) {
      throw new McpConfigError(
        `${path}: ${where}: expected "command" (a stdio server), "url" (an HTTP server) or a "type" of "builtin" or "openapi"`,
      );
    }
    const disabled = entry.disabled ?? false;
    // A disabled entry is kept as it is: its variables need not be set.
    const environment = disabled ? new Proxy({}, { get: () => '' }) : env;
    const common = {
      name,
      allowedTools: entry.allowed_tools,
      timeoutMs: entry.timeout_ms ?? defaultToolTimeoutMs,
      systemInstruction: entry.system_instruction,
      responseInstruction: entry.response_instruction,
      autoContextTool: entry.auto_context_tool,
      ...(entry.max_response_bytes ? { maxResponseBytes: entry.max_response_bytes } : {}),
      ...(entry.status_message ? { statusMessage: entry.status_message } : {}),
      disabled,
    };
    if (kind === 'stdio') {
      if (!entry.command)
        throw new McpConfigError(`${path}: ${where}.command: expected ${expectations.command}`);
      const cwd = entry.cwd ?? '.';
      return {
        ...common,
        transport: 'stdio',
        command: expand(entry.command, environment, `${where}.command`, path),
        args: (entry.args ?? []).map((arg, index) =>
          expand(arg, environment, `${where}.args[${index}]`, path),
        ),
        env: expandAll(entry.env ?? {}, environment, `${where}.env`, path),
        cwd: isAbsolute(cwd) ? cwd : resolve(baseFolder, cwd),
      } satisfies StdioServerConfig;
    }
    if (kind === 'builtin') {
      // Without `tools`, every builtin tool is offered.
      const tools: NonNullable<typeof entry.tools> =
        entry.tools ?? Object.keys(builtinTools).map((name) => ({ name }));
      if (tools.length === 0)
        throw new McpConfigError(`${path}: ${where}.tools: expected ${expectations.tools} (at least one)`);
      tools.forEach((tool, index) => {
        if (!builtinTools[tool.name]) {
          throw new McpConfigError(
            `${path}: ${where}.tools[${index}].name: there is no builtin tool "${tool.name}"; available: ${Object.keys(builtinTools).join(', ')}`,
          );
        }
      });
      return {
        ...common,
        transport: 'builtin',
        tools: tools.map((tool) => ({
          name: tool.name,
          ...(tool.description ? { description: tool.description } : {}),
          ...(tool.input_schema ? { inputSchema: tool.input_schema } : {}),
        })),
      } satisfies BuiltinServerConfig;
    }
    if (kind === 'openapi') {
      if (entry.openapi_spec === undefined) {
        throw new McpConfigError(`${path}: ${where}.openapi_spec: expected ${expectations.openapi_spec}`);
      }
      const spec =
        typeof entry.openapi_spec === 'string'
          ? readSpec(entry.openapi_spec, baseFolder, `${path}: ${where}.openapi_spec`)
          : entry.openapi_spec;
      let api: CompiledOpenApi;
      try {
        api = compileOpenApi(spec, entry.security ?? {});
      } catch (error) {
        if (!(error instanceof OpenApiSpecError)) throw error;
        throw new McpConfigError(
          `${path}: ${where}.openapi_spec${error.pointer}: ${error.message.slice(error.pointer.length + 2)}`,
        );
      }
      const servers = (spec as { servers?: Array<{ url?: unknown }> }).servers;
      const baseUrl = expand(
        entry.openapi_base_url ?? String(servers?.[0]?.url ?? ''),
        environment,
        `${where}.openapi_base_url`,
        path,
      );
      if (!disabled && !/^https?:\/\/[^\s]+$/.test(baseUrl)) {
        throw new McpConfigError(
          `${path}: ${where}.openapi_base_url: expected ${expectations.openapi_base_url} (the document names none)`,
        );
      }
      return {
        ...common,
        transport: 'openapi',
        api,
        baseUrl,
        headers: entry.headers ?? {},
        security: entry.security ?? {},
      } satisfies OpenApiServerConfig;
    }
    if (!entry.url) throw new McpConfigError(`${path}: ${where}.url: expected ${expectations.url}`);
    const url = expand(entry.url, environment, `${where}.url`, path);
    if (!disabled && !/^https?:\/\/[^\s]+$/.test(url)) {
      throw new McpConfigError(`${path}: ${where}.url: expected ${expectations.url}`);
    }
    // Header values stay templates: they are filled per request (tokens, then the environment).
    return { ...common, transport: kind, url, headers: entry.headers ?? {} } satisfies RemoteServerConfig;
  });
}

function readSpec(specPath: string, baseFolder: string, where: string): unknown {
  const full = isAbsolute(specPath) ? specPath : resolve(baseFolder, specPath);
  let text: string;
  try {
    text = readFileSync(full, 'utf8');
  } catch (error) {
    throw new McpConfigError(
      `${where}: cannot read ${full} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new McpConfigError(`${where}: ${full} is not valid JSON (${(error as Error).message})`);
  }
}
