import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import {
  McpClientManager,
  type McpClientManagerOptions,
  parseMcpConfig,
  type RemoteServerConfig,
  type ServerConfig,
  type StdioServerConfig,
} from '@ai-assistant/host-core';
import type { PeopleStore } from '../src/people-types.js';

/** The test MCP servers host-core's tests run (an echo server that reports what reached it, …). */
export const fixtures = resolve(import.meta.dirname, '..', '..', 'host-core', 'test', 'fixtures');
export const echoServer = join(fixtures, 'echo-server.mjs');
export const everythingEntry = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

/** A stdio server config running a Node script. */
export function nodeServer(
  name: string,
  script: string,
  args: string[] = [],
  extra: Partial<StdioServerConfig> = {},
): StdioServerConfig {
  return {
    name,
    transport: 'stdio',
    command: process.execPath,
    args: [script, ...args],
    env: {},
    cwd: fixtures,
    timeoutMs: 30_000,
    disabled: false,
    ...extra,
  };
}

/** A remote server config. */
export function remoteServer(
  name: string,
  transport: 'http' | 'sse',
  url: string,
  extra: Partial<RemoteServerConfig> = {},
): RemoteServerConfig {
  return { name, transport, url, headers: {}, timeoutMs: 30_000, disabled: false, ...extra };
}

/**
 * Managers opened by the tests of one file, closed after each test: `connect(servers, options)` opens one.
 * Call `closeAll` from `afterEach`.
 */
export function managerPool() {
  const managers: McpClientManager[] = [];
  return {
    async connect(servers: ServerConfig[], options: McpClientManagerOptions = {}): Promise<McpClientManager> {
      const manager = new McpClientManager(options);
      managers.push(manager);
      await manager.connect(servers);
      return manager;
    },
    closeAll: () => Promise.all(managers.splice(0).map((manager) => manager.close())),
  };
}

/** A stdio echo server opened per person, with their secret in PERSONAL_TOKEN only. */
export const personalEcho = (env: NodeJS.ProcessEnv = {}) =>
  parseMcpConfig(
    JSON.stringify({
      mcpServers: {
        mine: {
          command: process.execPath,
          args: [echoServer],
          connection: 'per_user',
          env: { PERSONAL_TOKEN: '${token}' },
        },
      },
    }),
    'mcp_servers.json',
    env,
  );

/** People's credentials and workspace settings in memory. */
export function memoryPeopleStore(): PeopleStore & { secrets: Map<string, Record<string, string>> } {
  const secrets = new Map<string, Record<string, string>>();
  const key = (workspace: string, user: string) => `${workspace}\u0000${user}`;
  return {
    secrets,
    credentials: {
      of: async (workspace, user) => ({ secrets: { ...(secrets.get(key(workspace, user)) ?? {}) } }),
      list: async (workspace, user) =>
        Object.keys(secrets.get(key(workspace, user)) ?? {}).map((server) => ({ server })),
      put: async (workspace, user, server, secret) => {
        secrets.set(key(workspace, user), { ...(secrets.get(key(workspace, user)) ?? {}), [server]: secret });
      },
      delete: async (workspace, user, server) => {
        const mine = secrets.get(key(workspace, user)) ?? {};
        const had = server in mine;
        delete mine[server];
        return had;
      },
    },
    workspaces: { settings: async () => new Map(), setEnabled: async () => {} },
  };
}
