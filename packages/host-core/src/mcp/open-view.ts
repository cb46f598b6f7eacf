import type { Logger } from '@ai-assistant/chat-types';
import type { ServerConfig } from '../config/mcp-config.js';
import type { McpView } from '../mcp-host.js';
import {
  type Connection,
  type ConnectionContext,
  newConnection,
  openConnection,
  shutDown,
} from './connection.js';
import { type Person, serverEnabled, type ViewSource } from './person.js';
import { PersonView } from './person-view.js';
import { configFor, type PersonalPool } from './personal-pool.js';
import type { Requests } from './requests.js';

/** What opening a person's view needs of the manager. */
export interface ViewOpening {
  /** The manager itself: every shared server, nothing filtered. */
  shared: McpView;
  /** Every configured server's connection. */
  catalog(): Connection[];
  pool: PersonalPool;
  requests: Requests;
  instructions(): Array<{ server: string; text: string }>;
  resourceServers(): string[];
  logger: Logger;
}

/**
 * One person's view for one turn: their per-person connections and their workspace's own servers
 * opened (or found open) in the pool, and the {@link PersonView} over them and the shared servers.
 */
export async function openView(person: Person, manager: ViewOpening): Promise<McpView> {
  // A workspace's server named like one of the operator's (added before the operator's came) is not
  // opened: a name stands for one server, and the operator's keeps it.
  const catalog = new Set(manager.catalog().map((connection) => connection.config.name));
  const added = (person.workspaceServers ?? []).filter((config) => {
    if (config.workspace !== person.workspace || !serverEnabled(person.settings, config)) return false;
    if (!catalog.has(config.name)) return true;
    manager.logger.warn({ server: config.name }, 'a workspace server has an operator server’s name; skipped');
    return false;
  });
  const [mine, workspace] = await Promise.all([
    manager.pool.openFor(
      person,
      [
        ...manager
          .catalog()
          .filter((connection) => connection.state === 'per_user')
          .map((connection) => connection.config),
        ...added.filter((config) => config.connection === 'per_user'),
      ].filter((config) => serverEnabled(person.settings, config)),
    ),
    // A workspace's own server without a person's credential: one connection for the workspace.
    Promise.all(
      added
        .filter((config) => config.connection !== 'per_user')
        .map((config) =>
          manager.pool.get(config, { workspace: person.workspace, user: '' }, '', identityOf(config)),
        ),
    ),
  ]);
  const own = [...mine, ...workspace];
  const source: ViewSource = {
    shared: manager.shared,
    configs: () => [...manager.catalog().map((connection) => connection.config), ...added],
    instructions: () => manager.instructions(),
    resourceServers: () => manager.resourceServers(),
    // A person's own connection has its own slots: one person's calls never queue behind another's.
    callOn: (connection, tool, name, args, options) =>
      manager.pool.use(connection, () =>
        manager.requests.callTool(
          connection,
          tool,
          name,
          args,
          options,
          `${connection.config.name}\u0000${person.workspace}\u0000${person.user}`,
        ),
      ),
    readOn: (connection, uri, options) =>
      manager.pool.use(connection, () => manager.requests.readForApp(connection, uri, options)),
    warn: (fields, message) => manager.logger.warn(fields, message),
  };
  return new PersonView(source, person, own);
}

/**
 * Connects a server once, without keeping it, and lists its tools (an admin's Test before adding a
 * workspace's server). `secret` fills `${token}` for this test only. Never throws.
 */
export async function testOnce(
  config: ServerConfig,
  secret: string | undefined,
  context: ConnectionContext,
): Promise<{ ok: true; tools: string[] } | { ok: false; reason: string }> {
  const tester = { workspace: config.workspace ?? '', user: '' };
  if (secret) context.redactor.add([secret]);
  const connection = newConnection(secret ? configFor(config, secret, tester) : config);
  try {
    await openConnection(connection, context);
    if (connection.state === 'connected')
      return { ok: true, tools: connection.tools.map((tool) => tool.name) };
    return {
      ok: false,
      reason: context.redactor.redact(connection.reason ?? `the server is ${connection.state}`, [
        secret ?? '',
      ]),
    };
  } finally {
    await shutDown(connection, 'test finished');
  }
}

/** What, when an admin changes it, reopens a workspace server's shared connection (hashed by the pool). */
function identityOf(config: ServerConfig): string {
  if (config.transport === 'http' || config.transport === 'sse')
    return JSON.stringify([config.url, config.headers]);
  if (config.transport === 'openapi') return JSON.stringify([config.baseUrl, config.headers, config.api]);
  return config.name;
}
