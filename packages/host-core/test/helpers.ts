import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import {
  freePort,
  listenOnLoopback,
  recordingLogger,
  startStatelessServer,
  weatherEntry,
} from '@ai-assistant/test-kit';
import {
  parseMcpConfig,
  type RemoteServerConfig,
  type ServerConfig,
  type StdioServerConfig,
} from '../src/config/mcp-config.js';
import { McpClientManager } from '../src/mcp/client-manager.js';
import type { McpClientManagerOptions } from '../src/mcp/manager-types.js';

export const fixtures = resolve(import.meta.dirname, 'fixtures');
export const echoServer = join(fixtures, 'echo-server.mjs');
export const repositoryRoot = resolve(import.meta.dirname, '..', '..', '..');
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

export { freePort, listenOnLoopback, recordingLogger, startStatelessServer, weatherEntry };

/** Starts server-everything over HTTP (`streamableHttp`) or SSE; resolves once it listens. */
export async function startEverything(
  mode: 'streamableHttp' | 'sse',
): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [everythingEntry, mode], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolvePromise, reject) => {
    let stderr = '';
    const timer = setTimeout(
      () => reject(new Error(`server-everything ${mode} did not start: ${stderr}`)),
      15_000,
    );
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
      if (/listening|running/i.test(stderr)) {
        clearTimeout(timer);
        resolvePromise();
      }
    });
  });
  return { url: `http://127.0.0.1:${port}/${mode === 'sse' ? 'sse' : 'mcp'}`, child };
}

/** Waits until `check` holds, polling for at most `ms`. */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 25));
  }
  return check();
}

/** The weather server config pointed at a fake JMA, with the clock pinned to the recorded Tokyo issue. */
export function weatherServer(jmaBaseUrl: string, extra: Partial<StdioServerConfig> = {}): StdioServerConfig {
  return nodeServer('weather', weatherEntry, [], {
    ...extra,
    env: { JMA_BASE_URL: jmaBaseUrl, MCP_WEATHER_NOW: '2026-03-12T05:30:00+09:00', ...extra.env },
  });
}

/** The built knowledge server of this repository. */
export const knowledgeEntry = join(repositoryRoot, 'mcp_servers', 'knowledge', 'dist', 'index.js');

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
