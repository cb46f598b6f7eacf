import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { builtinTools } from '../tools/builtin-tools.js';
import { type CompiledOpenApi, compileOpenApi, OpenApiSpecError } from '../tools/openapi-tools.js';
import { expectations, McpConfigError, type RawEntry } from './config-schema.js';
import type {
  BuiltinServerConfig,
  CommonServerConfig,
  OAuthSettings,
  OpenApiServerConfig,
  ServerConfig,
} from './server-types.js';

/** One entry as the schema read it. */
export type { RawEntry };

/** Where an entry is and what it may read: for its error messages and its `${VAR}`s. */
export interface EntryContext {
  path: string;
  where: string;
  environment: NodeJS.ProcessEnv;
  baseFolder: string;
  disabled: boolean;
}

/**
 * Replaces `${NAME}` with the environment's value, and `${NAME:-default}` with the value or, when it is
 * unset or empty, the default; names the first variable that is unset and has no default.
 */
export function expand(
  value: string,
  env: NodeJS.ProcessEnv,
  where: string,
  file: string,
  /** Leave `${token}` (the person's credential, filled per person) in place. */
  keepToken = false,
): string {
  return value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (match, name: string, fallback?: string) => {
      if (keepToken && name === personTokenName) return match;
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

/** The placeholder that stands for the asking person's own credential for the server. */
export const personTokenName = 'token';

/** Whether any of `templates` names `${token}`. */
export function namesPersonToken(templates: Record<string, string>): boolean {
  return Object.values(templates).some((value) => value.includes(`\${${personTokenName}}`));
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

/** A `builtin` entry: the named tools of the host (every one when `tools` is absent). */
export function builtinEntry(
  entry: RawEntry,
  common: CommonServerConfig,
  context: EntryContext,
): BuiltinServerConfig {
  const { path, where } = context;
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

/** An `openapi` entry: its document read and compiled once, its base URL checked. */
export function openApiEntry(
  entry: RawEntry,
  common: CommonServerConfig,
  context: EntryContext,
): OpenApiServerConfig {
  const { path, where, environment, baseFolder, disabled } = context;
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

/**
 * A remote entry's `oauth`: `true` is the authorization-code flow with the host's own client identity;
 * an object may name a pre-registered client, `client_credentials`, and fallback scopes. Secrets may be
 * `${VAR}`s (redacted like every value taken from the environment).
 */
export function oauthOf(
  raw: RawEntry['oauth'],
  env: NodeJS.ProcessEnv,
  where: string,
  file: string,
): OAuthSettings | undefined {
  if (raw === undefined || raw === false) return undefined;
  if (raw === true) return { grant: 'authorization_code' };
  const value = (field: keyof typeof raw) => {
    const text = raw[field];
    return text === undefined ? undefined : expand(text, env, `${where}.${field}`, file);
  };
  const settings: OAuthSettings = {
    grant: raw.grant ?? 'authorization_code',
    ...(raw.client_id ? { clientId: value('client_id') } : {}),
    ...(raw.client_secret ? { clientSecret: value('client_secret') } : {}),
    ...(raw.private_key ? { privateKey: value('private_key') } : {}),
    ...(raw.signing_algorithm ? { signingAlgorithm: raw.signing_algorithm } : {}),
    ...(raw.scope ? { scope: raw.scope } : {}),
    ...(raw.issuer ? { issuer: value('issuer') } : {}),
  };
  if (settings.grant === 'client_credentials') {
    if (!settings.clientId)
      throw new McpConfigError(
        `${file}: ${where}.client_id: "client_credentials" needs the client registered for the host at the authorization server (client_id, with client_secret or private_key)`,
      );
    if (!settings.clientSecret && !settings.privateKey)
      throw new McpConfigError(
        `${file}: ${where}: "client_credentials" needs "client_secret" or "private_key" (a PEM key for private_key_jwt)`,
      );
  } else if (settings.privateKey)
    throw new McpConfigError(
      `${file}: ${where}.private_key: private_key_jwt is for "grant": "client_credentials"; an authorization-code client uses "client_secret" or none`,
    );
  return settings;
}

/**
 * Marks a server whose templates name `${token}` (each person brings their own credential) and checks
 * that `connection: "per_user"` is used where it can work.
 */
export function withPersonalCredential(
  config: ServerConfig,
  path: string,
  where: string,
  entryHasOAuth: (config: ServerConfig) => boolean,
): ServerConfig {
  const templates =
    config.transport === 'stdio'
      ? config.env
      : config.transport === 'openapi'
        ? { ...config.headers, ...config.security }
        : config.transport === 'builtin'
          ? {}
          : config.headers;
  if (entryHasOAuth(config) && config.transport !== 'http' && config.transport !== 'sse')
    throw new McpConfigError(
      `${path}: ${where}.oauth: MCP authorization is for remote servers ("http" or "sse"); a ${config.transport} server takes its credentials in its ${config.transport === 'stdio' ? 'env' : 'headers or security'}`,
    );
  // An authorization-code server: each person connects their own account, on their own connection.
  const oauthPerPerson =
    (config.transport === 'http' || config.transport === 'sse') &&
    config.oauth?.grant === 'authorization_code';
  if (oauthPerPerson) return { ...config, personalCredential: true, connection: 'per_user' };
  const personalCredential = namesPersonToken(templates);
  if (config.transport === 'stdio' && personalCredential && config.connection !== 'per_user')
    throw new McpConfigError(
      `${path}: ${where}.env: \${token} (each person's own credential) in a stdio server's env needs "connection": "per_user", since a process's environment is fixed when it starts`,
    );
  if (config.connection === 'per_user') {
    if (config.transport === 'builtin' || config.transport === 'openapi')
      throw new McpConfigError(
        `${path}: ${where}.connection: "per_user" is for stdio, http and sse servers; an ${config.transport} server already fills \${token} per request`,
      );
    if (!personalCredential && !config.disabled)
      throw new McpConfigError(
        `${path}: ${where}.connection: "per_user" opens a connection with each person's credential, but no ${config.transport === 'stdio' ? 'env' : 'headers'} value names \${token}; add one (e.g. ${config.transport === 'stdio' ? '"env": { "API_TOKEN": "${token}" }' : '"headers": { "Authorization": "Bearer ${token}" }'})`,
      );
  }
  return { ...config, personalCredential };
}
