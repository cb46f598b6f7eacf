import { silentLogger } from '@ai-assistant/chat-types';
import { OAuthService } from '../oauth/oauth-service.js';
import { environmentSecrets, Redactor } from '../redaction.js';
import { version } from '../version.js';
import { type Connection, type ConnectionContext, type McpConnection, shutDown } from './connection.js';
import { defaultResultBudget } from './format-tool-result.js';
import type { McpClientManagerOptions } from './manager-types.js';
import { PersonalPool } from './personal-pool.js';
import { Requests } from './requests.js';
import { SharedStarts } from './shared-starts.js';
import { defaultStartConcurrency } from './startup.js';
import { defaultRestartPolicy, Supervisor } from './supervisor.js';
import type { ToolIndex } from './tool-index.js';

/** What the manager's parts call back into it for. */
export interface ManagerHooks {
  /** A server's tools (or its state) changed: the tool index must be rebuilt. */
  onToolsChanged: () => void;
  /** An MCP server failed to start or went away. */
  onFailed: (connection: McpConnection) => void;
  /** Whether the manager is closing (a start then makes no new attempt). */
  closing: () => boolean;
}

/**
 * The parts an `McpClientManager` is made of, from its options: one redactor (every log line passes
 * through it), OAuth when the app gave a redirect URI, the context connections open with, the
 * supervisor of shared servers, how they start, the request path and the per-person pool.
 */
export function managerParts(options: McpClientManagerOptions, hooks: ManagerHooks) {
  const env = options.env ?? process.env;
  const redactor = options.redactor ?? new Redactor(environmentSecrets(env));
  const logger = redactor.wrap(options.logger ?? silentLogger);
  const now = options.now ?? (() => new Date());
  const oauth = options.oauth ? new OAuthService({ ...options.oauth, redactor, logger, now }) : undefined;
  const context: ConnectionContext = {
    logger,
    redactor,
    env,
    clientInfo: options.clientInfo ?? { name: 'ai-assistant', version },
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    now,
    ...(oauth ? { oauth } : {}),
    onToolsChanged: (changed) => {
      hooks.onToolsChanged();
      // A list the server changed (tools/list_changed) is kept too.
      if (changed) starts.keep(changed);
    },
    onFailed: hooks.onFailed,
    closing: hooks.closing,
    growStartupLimit: true,
    ...(options.onServerEvent ? { onEvent: options.onServerEvent } : {}),
  };
  // Shared servers start a few at a time (the supervisor's retries too).
  const starts = new SharedStarts(
    context,
    options.toolCatalogCache,
    options.startConcurrency ?? defaultStartConcurrency(),
  );
  const supervisor = new Supervisor((connection) => starts.reopen(connection), logger, {
    ...defaultRestartPolicy,
    ...options.restartPolicy,
  });
  const requests = new Requests(
    redactor,
    env,
    options.resultBudget ?? defaultResultBudget,
    options.maxConcurrentPerServer ?? 4,
  );
  // Per-person connections are not supervised: a failed one is reopened on the person's next turn.
  const pool = new PersonalPool(
    { ...context, onToolsChanged: () => {}, onFailed: () => {}, onEvent: undefined, growStartupLimit: false },
    options.personalPool,
  );
  return { redactor, logger, oauth, context, supervisor, requests, pool, starts };
}

/**
 * Ends the manager: the supervisor's retries, every connection, the pool, the starts under way (each
 * makes no new attempt and shuts down what it opened), then the index.
 */
export async function closeAll(
  supervisor: Supervisor,
  connections: Iterable<Connection>,
  pool: PersonalPool,
  index: ToolIndex,
  starts: () => Promise<void>,
): Promise<void> {
  const retries = supervisor.close();
  await Promise.all([
    ...[...connections].map((connection) => {
      if (connection.kind === 'mcp') clearTimeout(connection.idleTimer);
      // A server still starting has said nothing yet: it is not asked to exit first.
      return shutDown(connection, 'closed by the host', { hung: connection.state === 'connecting' });
    }),
    pool.close(),
  ]);
  // A reconnection under way when the close began ends here too.
  await retries;
  await starts();
  index.clear();
}
