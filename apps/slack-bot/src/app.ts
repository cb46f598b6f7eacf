import type { ChatService, Logger, McpClientManager } from '@ai-assistant/host-core';
import { App, type Logger as BoltLogger, LogLevel } from '@slack/bolt';
import type { BotConfig } from './config.js';
import { register as registerCommands } from './listeners/commands/assistant.js';
import { register } from './listeners/events/index.js';
import { answerInThread, type Question } from './slack/answer.js';
import { EventDeduper } from './slack/event-deduper.js';
import type { BotIdentity } from './slack/thread-history.js';
import { WorkQueue } from './slack/work-queue.js';

/** What the Slack app is built from. */
export interface SlackBotDependencies {
  config: BotConfig;
  chat: ChatService;
  /** For /healthz; undefined when MCP is off. */
  mcp?: McpClientManager;
  logger: Logger;
}

/** A running (or runnable) Slack app. */
export interface SlackBot {
  app: App;
  start(): Promise<void>;
  /** Stops taking events, lets running answers finish (up to `graceMs`), then resolves. */
  stop(graceMs?: number): Promise<void>;
}

function boltLogger(logger: Logger): BoltLogger {
  let level = LogLevel.INFO;
  const text = (parts: unknown[]) =>
    parts.map((part) => (typeof part === 'string' ? part : JSON.stringify(part))).join(' ');
  return {
    debug: (...parts) => logger.debug({ source: 'bolt' }, text(parts)),
    info: (...parts) => logger.info({ source: 'bolt' }, text(parts)),
    warn: (...parts) => logger.warn({ source: 'bolt' }, text(parts)),
    error: (...parts) => logger.error({ source: 'bolt' }, text(parts)),
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => {},
  };
}

/** Builds the Bolt app: Socket Mode when an app token is set, else the HTTP receiver; /healthz on both. */
export function createSlackBot({ config, chat, mcp, logger }: SlackBotDependencies): SlackBot {
  const clientOptions = config.apiUrl ? { slackApiUrl: config.apiUrl } : {};
  const healthz = {
    path: '/healthz',
    method: ['GET'],
    handler: (
      _request: unknown,
      response: {
        writeHead: (status: number, headers: Record<string, string>) => void;
        end: (body: string) => void;
      },
    ) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ status: 'ok', mcp: { enabled: mcp !== undefined, servers: mcp?.status() ?? [] } }),
      );
    },
  };
  const app = new App({
    token: config.botToken,
    ...(config.appToken
      ? {
          socketMode: true,
          appToken: config.appToken,
          installerOptions: { clientOptions, port: config.port },
        }
      : { signingSecret: config.signingSecret as string }),
    clientOptions,
    customRoutes: [healthz],
    logger: boltLogger(logger),
    logLevel: LogLevel.INFO,
  });
  const queue = new WorkQueue(config.maxConcurrent);
  let bot: BotIdentity = { userId: '' };
  const answer = (question: Question) =>
    answerInThread(question, {
      client: app.client,
      chat,
      bot,
      logger,
      historyLimit: config.historyLimit,
      streaming: config.streaming,
    });
  register(app, {
    bot: () => bot,
    deduper: new EventDeduper(),
    queue,
    followUps: config.followUps,
    logger,
    answer,
  });
  registerCommands(app, { mcp, queue, answer, logger });
  app.error(async (error) => {
    logger.error({ error }, 'unhandled error in a Slack listener');
  });

  return {
    app,
    async start() {
      const identity = await app.client.auth.test();
      bot = { userId: identity.user_id as string, ...(identity.bot_id ? { botId: identity.bot_id } : {}) };
      await (config.appToken ? app.start() : app.start(config.port));
      logger.info(
        { mode: config.appToken ? 'socket' : 'http', port: config.port, botUserId: bot.userId },
        'Slack app started',
      );
    },
    async stop(graceMs = 10_000) {
      const drained = queue.drain(graceMs);
      await app.stop().catch((error: unknown) => logger.warn({ error }, 'receiver did not stop cleanly'));
      if (!(await drained))
        logger.warn({ pending: queue.size }, 'answers still running after the grace period');
    },
  };
}
