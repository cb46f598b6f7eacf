import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { plainByName } from '../redaction.js';
import {
  defaultIdleStopMs,
  defaultMaxToolTimeoutMs,
  defaultToolTimeoutMs,
  everyProblem,
  expectations,
  fileSchema,
  McpConfigError,
  normalizeFields,
  type RawEntry,
  serverSchema,
  transportAliases,
} from './config-schema.js';
import {
  builtinEntry,
  type EntryContext,
  expand,
  oauthOf,
  openApiEntry,
  withPersonalCredential,
} from './entries.js';
import type {
  CommonServerConfig,
  RemoteServerConfig,
  ServerConfig,
  StdioServerConfig,
} from './server-types.js';

export { defaultToolTimeoutMs, McpConfigError } from './config-schema.js';
export type {
  ApprovalPolicy,
  BuiltinServerConfig,
  CommonServerConfig,
  OAuthSettings,
  OpenApiServerConfig,
  RemoteServerConfig,
  ServerConfig,
  StdioServerConfig,
  TransportKind,
} from './server-types.js';

/** Whether MCP is switched on: `MCP_ENABLED` is `true`, `1` or `yes`. */
export function isMcpEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const enabled = (env.MCP_ENABLED ?? '').trim();
  // MCP_SERVER_URL alone turns MCP on (the one-variable setup); MCP_ENABLED=false still wins.
  if (!enabled) return Boolean(env.MCP_SERVER_URL?.trim());
  return /^(true|1|yes)$/i.test(enabled);
}

/** The name of the server `MCP_SERVER_URL` adds: its tools are `mcp__remote__<tool>`. */
export const environmentServerName = 'remote';

/**
 * The one remote server of `MCP_SERVER_URL` (Streamable HTTP, or SSE for a URL ending in `/sse`), with
 * `MCP_SERVER_HEADERS` (a JSON object of header names and values) sent on every request; undefined when
 * the variable is unset. The header values are secrets: logs and errors never show them.
 */
export function environmentServer(env: NodeJS.ProcessEnv = process.env): ServerConfig | undefined {
  const url = env.MCP_SERVER_URL?.trim();
  if (!url) return undefined;
  const raw = env.MCP_SERVER_HEADERS?.trim();
  let headers: unknown = {};
  try {
    headers = raw ? JSON.parse(raw) : {};
  } catch {
    headers = undefined;
  }
  if (!headers || typeof headers !== 'object' || Array.isArray(headers))
    throw new McpConfigError(
      'MCP_SERVER_HEADERS: expected a JSON object of header names and values, e.g. {"Authorization": "Bearer …"}',
    );
  const entry = { url, headers, ...(/\/sse\/?$/.test(url) ? { type: 'sse' } : {}) };
  const [server] = parseMcpConfig(
    JSON.stringify({ mcpServers: { [environmentServerName]: entry } }),
    'MCP_SERVER_URL',
    env,
  );
  const config = server as ServerConfig;
  config.substituted = [
    ...(config.substituted ?? []),
    ...Object.values(headers as Record<string, string>).filter((value) => typeof value === 'string'),
  ];
  return config;
}

/**
 * Every server the environment configures: the config file's (`MCP_SERVERS_CONFIG`, with its local
 * overlay) and `MCP_SERVER_URL`'s. `servers` is undefined when there is neither (MCP off); `label` names
 * where they came from, for messages.
 */
export async function loadConfiguredServers(
  env: NodeJS.ProcessEnv = process.env,
  cwd?: string,
): Promise<{ path: string; label: string; servers: ServerConfig[] | undefined }> {
  const path = mcpConfigPath(env, cwd);
  const fromFile = await loadMcpConfig(path, env);
  const fromEnvironment = environmentServer(env);
  if (!fromEnvironment) return { path, label: mcpConfigLabel(path), servers: fromFile };
  if (fromFile?.some((server) => server.name === environmentServerName))
    throw new McpConfigError(
      `${mcpConfigLabel(path)}: mcpServers.${environmentServerName}: MCP_SERVER_URL adds a server named "${environmentServerName}" too; rename this entry or unset MCP_SERVER_URL`,
    );
  return {
    path,
    label: fromFile ? `${mcpConfigLabel(path)} and MCP_SERVER_URL` : 'MCP_SERVER_URL',
    servers: [...(fromFile ?? []), fromEnvironment],
  };
}

/** A configured root: a file:// URI as given, or a folder (relative to the config file) made one. */
function rootOf(root: string, baseFolder: string, field: string): { uri: string; name: string } {
  const uri = root.startsWith('file://') ? root : pathToFileURL(resolve(baseFolder, root)).href;
  try {
    return { uri, name: basename(fileURLToPath(uri)) || uri };
  } catch {
    throw new McpConfigError(`${field}: expected a folder or a file:// URI of this machine, not "${root}"`);
  }
}

/** The config file path: `MCP_SERVERS_CONFIG`, else `config/mcp_servers.json` under `cwd`. */
export function mcpConfigPath(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  return resolve(cwd, env.MCP_SERVERS_CONFIG || 'config/mcp_servers.json');
}

/** The git-ignored overlay beside a config file (`mcp_servers.local.json`), when it exists. */
function localConfigPath(path: string): string | undefined {
  const localPath = path.replace(/(\.json)?$/, '.local.json');
  return localPath !== path && existsSync(localPath) ? localPath : undefined;
}

/** How messages name the config: the file, and the local overlay merged over it when there is one. */
export function mcpConfigLabel(path: string): string {
  const localPath = localConfigPath(path);
  return localPath ? `${path} (with ${localPath})` : path;
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
  const localPath = localConfigPath(path);
  if (!localPath) return parseMcpConfig(text, path, env);
  // A git-ignored overlay beside the file: its entries are merged over the shipped ones (see `overlay`).
  const label = mcpConfigLabel(path);
  const localText = await readFile(localPath, 'utf8');
  // Both files' syntax errors are reported at once.
  const [shipped, local] = everyProblem([
    () => jsonOf(text, path),
    () => jsonOf(localText, localPath),
  ]) as Array<{
    mcpServers?: Record<string, unknown>;
  }>;
  return parseMcpConfig(
    JSON.stringify({ ...shipped, mcpServers: overlay(shipped?.mcpServers ?? {}, local?.mcpServers ?? {}) }),
    label,
    env,
    dirname(resolve(path)),
  );
}

const isMap = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The local file over the shipped one: maps (the server list, an entry, its `env`, `headers`, `oauth`…) merge
 * key by key at every depth; a list or a plain value replaces the shipped one; `null` removes the key.
 */
function overlay(shipped: Record<string, unknown>, local: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...shipped };
  for (const [key, value] of Object.entries(local)) {
    const base = merged[key];
    if (value === null) delete merged[key];
    else merged[key] = isMap(base) && isMap(value) ? overlay(base, value) : value;
  }
  return merged;
}

/** What to do about each kind of JSON syntax error, in the words of V8's messages. */
function jsonFix(reason: string): string {
  if (/property name/i.test(reason))
    return 'put property names in double quotes, and remove a trailing comma or a comment just before it (JSON allows neither)';
  if (/end of JSON input/i.test(reason)) return 'the file ends early: close every "{" and "[" it opens';
  if (/after property value|after array element/i.test(reason))
    return 'add the missing comma (or closing bracket) just before it';
  if (/control character/i.test(reason)) return 'write a line break inside a string as \\n';
  return 'check for a missing comma, colon, quote or bracket just before it';
}

/**
 * The JSON of a config file; a syntax error names `file:line:column` (the editor's way), what is wrong
 * and what to do.
 */
function jsonOf(text: string, file: string): unknown {
  // Editors on Windows save UTF-8 with a byte-order mark; JSON.parse would call it a stray token.
  const content = text.replace(/^\uFEFF/, '');
  try {
    return JSON.parse(content);
  } catch (error) {
    const message = (error as Error).message;
    const position = Number(/at position (\d+)/.exec(message)?.[1] ?? content.length);
    const before = content.slice(0, position).split('\n');
    const line = before.length;
    const column = (before.at(-1)?.length ?? 0) + 1;
    const reason = message
      .replace(/\s*in JSON at position \d+.*$/s, '')
      .replace(/\s*\(line \d+ column \d+\)$/, '');
    throw new McpConfigError(`${file}:${line}:${column}: not valid JSON: ${reason}; ${jsonFix(reason)}`);
  }
}

/** Validates the text of an `mcpServers` file; see {@link loadMcpConfig}. Every problem is reported at once. */
export function parseMcpConfig(
  text: string,
  path: string,
  env: NodeJS.ProcessEnv = process.env,
  /** Folder relative paths are resolved against (default: the config file's). */
  folder?: string,
): ServerConfig[] {
  const json = jsonOf(text, path);
  const file = fileSchema().safeParse(json);
  if (!file.success) {
    throw new McpConfigError(
      `${path}: mcpServers: expected an object mapping server names to their settings`,
    );
  }
  const baseFolder = folder ?? dirname(resolve(path));
  return everyProblem(
    Object.entries(file.data.mcpServers).map(
      ([name, raw]) =>
        () =>
          entryOf(name, raw),
    ),
  );

  function entryOf(name: string, raw: unknown): ServerConfig {
    const where = `mcpServers.${name}`;
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) {
      throw new McpConfigError(
        `${path}: ${where}: server names may use letters, digits, "_", "-" and "." (1–64 characters)`,
      );
    }
    const { normalized, problems } = normalizeFields(raw, path, where);
    const parsed = serverSchema().safeParse(normalized);
    if (!parsed.success) {
      const named = new Set<string>();
      for (const issue of parsed.error.issues) {
        const field = String(issue.path[0] ?? '');
        const at = issue.path.length ? `${where}.${issue.path.join('.')}` : where;
        if (named.has(at)) continue;
        named.add(at);
        problems.push(
          new McpConfigError(
            `${path}: ${at}: expected ${expectations[field] ?? 'an object of server settings'}`,
          ),
        );
      }
    }
    if (problems.length > 0 || !parsed.success) throw McpConfigError.of(problems);
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
    const timeoutMs = entry.timeout_ms ?? defaultToolTimeoutMs;
    everyProblem([
      () => startFields(entry, kind, where),
      () => {
        if (entry.max_timeout_ms !== undefined && entry.max_timeout_ms < timeoutMs)
          throw new McpConfigError(
            `${path}: ${where}.max_timeout_ms: expected at least timeout_ms (${timeoutMs}): it caps how long progress may extend a call`,
          );
      },
    ]);
    const common: CommonServerConfig = {
      name,
      allowedTools: entry.allowed_tools,
      timeoutMs,
      maxTimeoutMs: entry.max_timeout_ms ?? Math.max(timeoutMs, defaultMaxToolTimeoutMs),
      systemInstruction: entry.system_instruction,
      responseInstruction: entry.response_instruction,
      autoContextTool: entry.auto_context_tool,
      ...(entry.max_response_bytes ? { maxResponseBytes: entry.max_response_bytes } : {}),
      ...(entry.startup_timeout_ms ? { startupTimeoutMs: entry.startup_timeout_ms } : {}),
      ...(entry.status_message ? { statusMessage: entry.status_message } : {}),
      ...(entry.restart ? { restart: entry.restart } : {}),
      ...(entry.approval ? { approval: entry.approval } : {}),
      ...(entry.credential_help ? { credentialHelp: entry.credential_help } : {}),
      disabled,
      connection: entry.connection ?? 'shared',
      // Set from the finished entry's templates by `withPersonalCredential`.
      personalCredential: false,
      enabledByDefault: entry.enabled_by_default ?? true,
      ...(entry.server_instructions === false ? { serverInstructions: false } : {}),
      ...(entry.roots
        ? { roots: entry.roots.map((root) => rootOf(root, baseFolder, `${path}: ${where}.roots`)) }
        : {}),
      ...(entry.log_level ? { logLevel: entry.log_level } : {}),
      ...(entry.protocol_version && entry.protocol_version !== 'auto'
        ? { protocolVersion: entry.protocol_version }
        : {}),
    };
    return withPersonalCredential(
      serverOf(entry, kind, common, where),
      path,
      where,
      () => entry.oauth !== undefined && entry.oauth !== false,
    );
  }

  /** `start` and `idle_stop_ms`: for a stdio server the host shares, and only together. */
  function startFields(entry: RawEntry, kind: string, where: string): void {
    everyProblem([
      () => {
        if (entry.start === 'on_first_use' && kind !== 'stdio')
          throw new McpConfigError(
            `${path}: ${where}.start: "on_first_use" is for stdio servers (a process the host starts); a ${kind} server costs no process while unused: remove "start"`,
          );
        if (entry.start === 'on_first_use' && entry.connection === 'per_user')
          throw new McpConfigError(
            `${path}: ${where}.start: a "per_user" server already starts on each person's first use: remove "start"`,
          );
      },
      () => {
        if (entry.idle_stop_ms !== undefined && entry.start !== 'on_first_use')
          throw new McpConfigError(
            `${path}: ${where}.idle_stop_ms: only a server with "start": "on_first_use" is stopped when idle: add that, or remove idle_stop_ms`,
          );
      },
    ]);
  }

  function serverOf(
    entry: RawEntry,
    kind: NonNullable<(typeof transportAliases)[string]>,
    common: CommonServerConfig,
    where: string,
  ): ServerConfig {
    const disabled = common.disabled;
    // A disabled entry is kept as it is: its variables need not be set. Every value taken from the
    // environment is remembered, so the host can redact it wherever a server repeats it; in a command,
    // its arguments, its env and its url, a value plainly not secret by its variable's name (a folder, a
    // URL without credentials) stays readable, so "…/notes is not a folder" says which one.
    const substituted: string[] = [];
    common.substituted = substituted;
    const remembering = (keepPlain: boolean): NodeJS.ProcessEnv =>
      disabled
        ? new Proxy({}, { get: () => '' })
        : new Proxy(env, {
            get: (target, name) => {
              const value = typeof name === 'string' ? target[name] : undefined;
              if (value && !(keepPlain && plainByName(name as string, value))) substituted.push(value);
              return value;
            },
          });
    const environment = remembering(true);
    // OAuth settings, headers and OpenAPI security hold credentials whatever their variables are called.
    const strictEnvironment = remembering(false);
    if (kind === 'stdio') {
      if (!entry.command)
        throw new McpConfigError(`${path}: ${where}.command: expected ${expectations.command}`);
      const cwd = entry.cwd ?? '.';
      const onFirstUse = entry.start === 'on_first_use';
      const command = entry.command;
      // Every unset variable is named at once.
      const [expanded, args, childEnv] = everyProblem<unknown>([
        () => expand(command, environment, `${where}.command`, path),
        () =>
          everyProblem(
            (entry.args ?? []).map(
              (arg, index) => () => expand(arg, environment, `${where}.args[${index}]`, path),
            ),
          ),
        // `${token}` stays for a per-person connection to fill (checked in withPersonalCredential).
        () =>
          Object.fromEntries(
            everyProblem(
              Object.entries(entry.env ?? {}).map(
                ([key, value]) =>
                  () =>
                    [key, expand(value, environment, `${where}.env.${key}`, path, true)] as const,
              ),
            ),
          ),
      ]);
      return {
        ...common,
        ...(onFirstUse ? { start: 'on_first_use', idleStopMs: entry.idle_stop_ms ?? defaultIdleStopMs } : {}),
        transport: 'stdio',
        command: expanded as string,
        args: args as string[],
        env: childEnv as Record<string, string>,
        cwd: isAbsolute(cwd) ? cwd : resolve(baseFolder, cwd),
      } satisfies StdioServerConfig;
    }
    const context: EntryContext = { path, where, environment: strictEnvironment, baseFolder, disabled };
    if (kind === 'builtin') return builtinEntry(entry, common, context);
    if (kind === 'openapi') return openApiEntry(entry, common, context);
    if (!entry.url) throw new McpConfigError(`${path}: ${where}.url: expected ${expectations.url}`);
    const url = expand(entry.url, environment, `${where}.url`, path);
    if (!disabled && !/^https?:\/\/[^\s]+$/.test(url)) {
      throw new McpConfigError(`${path}: ${where}.url: expected ${expectations.url}`);
    }
    // Header values stay templates: they are filled per request (tokens, then the environment).
    const oauth = oauthOf(entry.oauth, strictEnvironment, `${where}.oauth`, path);
    return {
      ...common,
      transport: kind,
      url,
      headers: entry.headers ?? {},
      ...(oauth ? { oauth } : {}),
    } satisfies RemoteServerConfig;
  }
}
