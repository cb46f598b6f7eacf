import { silentLogger } from '@ai-assistant/chat-types';
import { isMcpEnabled, loadConfiguredServers } from '../config/mcp-config.js';
import { wholeNumber } from '../environment.js';
import { McpClientManager, type McpClientManagerOptions } from './client-manager.js';

/** Options of {@link startMcpFromEnvironment}. */
export interface StartMcpOptions extends McpClientManagerOptions {
  env?: NodeJS.ProcessEnv;
  /** Folder the default config path is relative to (default: the process's). */
  cwd?: string;
}

/**
 * What an app does at start-up: when `MCP_ENABLED` is true and the config file exists (or
 * `MCP_SERVER_URL` is set), connect every configured server and log each one's status. Returns undefined when MCP is off. A broken
 * config file throws `McpConfigError`; a server that fails is only logged. `MCP_START_CONCURRENCY`
 * (servers starting at once) and `MCP_STARTUP_TIMEOUT_MS` (the start-up limit of entries without
 * `startup_timeout_ms`) tune the start; with a `toolCatalogCache`, it returns as soon as every tool
 * is listed, while servers with cached tools keep connecting.
 */
export async function startMcpFromEnvironment(
  options: StartMcpOptions = {},
): Promise<McpClientManager | undefined> {
  const env = options.env ?? process.env;
  const logger = options.logger ?? silentLogger;
  if (!isMcpEnabled(env)) {
    logger.info({}, 'MCP is off (set MCP_ENABLED=true to use MCP servers)');
    return undefined;
  }
  const { path, servers } = await loadConfiguredServers(env, options.cwd);
  if (!servers) {
    logger.info({ path }, 'MCP is off: no server config file at this path (set MCP_SERVERS_CONFIG)');
    return undefined;
  }
  // A malformed number is an EnvironmentError naming the variable, as everywhere else.
  const perServer = wholeNumber(env, 'MCP_MAX_CONCURRENT_PER_SERVER', undefined);
  const max = wholeNumber(env, 'MCP_PERSONAL_CONNECTIONS_MAX', undefined);
  const maxPerWorkspace = wholeNumber(env, 'MCP_PERSONAL_CONNECTIONS_PER_WORKSPACE', undefined);
  const startConcurrency = wholeNumber(env, 'MCP_START_CONCURRENCY', undefined);
  const startupTimeoutMs = wholeNumber(env, 'MCP_STARTUP_TIMEOUT_MS', undefined);
  const manager = new McpClientManager({
    ...(perServer ? { maxConcurrentPerServer: perServer } : {}),
    ...(startConcurrency ? { startConcurrency } : {}),
    ...(startupTimeoutMs ? { connectTimeoutMs: startupTimeoutMs } : {}),
    personalPool: {
      ...(max ? { max } : {}),
      ...(maxPerWorkspace ? { maxPerWorkspace } : {}),
    },
    ...options,
    logger,
  });
  await manager.connect(servers);
  for (const server of manager.status()) {
    logger.info(
      { ...server },
      `MCP server ${server.name}: ${server.state}, ${server.toolCount} tool${server.toolCount === 1 ? '' : 's'}`,
    );
  }
  return manager;
}
