#!/usr/bin/env node
import { type People, startPeople } from '@ai-assistant/assistant';
import {
  ChatService,
  embeddingRanker,
  environmentSecrets,
  HostError,
  loadDotEnv,
  Redactor,
} from '@ai-assistant/host-core';
import { createProviderFromEnv, defaultModels } from '@ai-assistant/llm-providers';
import { openStoreFromEnvironment, type Store, storeSecrets } from '@ai-assistant/store';
import { createSlackBot, type SlackBot } from './app.js';
import { readBotConfig } from './config.js';
import { createLogger } from './logger.js';
import { oauthOptions, operatorHooks } from './operations.js';
import { auditRetentionDays, pruneAuditDaily } from './slack/audit.js';
import { connectCommand } from './slack/people.js';
import { startTelemetry, type Telemetry } from './telemetry.js';

/** Start-up problems whose message tells the operator what to fix: logged as such, without a stack. */
const startProblems = new Set<string>([
  'BOT_CONFIG_INVALID',
  'LLM_NOT_CONFIGURED',
  'MCP_CONFIG_INVALID',
  'ENVIRONMENT_INVALID',
  'PORT_IN_USE',
  'STORE_START_FAILED',
]);

/** Starts the Slack app from the environment; resolves once it is listening. */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  loadDotEnv();
  // One redactor for the process: its logs, the providers' error texts and MCP's results.
  const redactor = new Redactor(environmentSecrets(env));
  const logger = createLogger(env, undefined, redactor);
  let people: People | undefined;
  let bot: SlackBot | undefined;
  let store: Store | undefined;
  let telemetry: Telemetry | undefined;
  let pruning: { stop(): void } | undefined;
  let stopping = false;
  const shutDown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing running answers');
    // Bounded: a Slack connection still retrying must not hold the process.
    await Promise.race([
      bot?.stop(10_000).catch(() => undefined),
      new Promise((resolve) => setTimeout(resolve, 15_000).unref()),
    ]);
    await people?.close();
    await store?.close();
    pruning?.stop();
    await telemetry?.shutdown();
    logger.info({}, 'stopped');
    process.exit(0);
  };
  try {
    const config = readBotConfig(env);
    redactor.pin(storeSecrets(env));
    telemetry = await startTelemetry(env, logger);
    // Each running answer holds a connection for its thread's turn; a few more serve claims and health.
    store = await openStoreFromEnvironment(env, logger, { poolSize: config.maxConcurrent + 4 });
    const provider = createProviderFromEnv(env, { logger, redact: (text) => redactor.redact(text) });
    const hooks = operatorHooks(store, env);
    // What host://settings shows people: the model, the loop's limits and the answer's (never a secret).
    let chatSettings = (): Record<string, unknown> => ({});
    const model = env.LLM_MODEL?.trim() || defaultModels[provider.name as keyof typeof defaultModels];
    people = await startPeople({
      env,
      logger,
      redactor,
      store,
      // Each server's tool list is kept in the store: a restart (or a replica) lists every tool at once.
      toolCatalogCache: store.toolCatalogs,
      connectHint: connectCommand,
      appSettings: () => ({
        model,
        ...chatSettings(),
        approvalTimeoutMs: config.approvalTimeoutMs,
        streaming: config.streaming,
        threadHistoryLimit: config.historyLimit,
        conversationRetentionDays: config.conversationRetentionDays,
      }),
      ...hooks.people,
      ...oauthOptions(config.publicUrl),
    });
    // No shared tools: each turn brings its asker's view (People.viewFor).
    const chat = new ChatService({
      provider,
      logger,
      systemPrompt: config.systemPrompt,
      ...config.chat,
      // Where the provider has embeddings, tools are also chosen by meaning; their vectors live in the store.
      toolRanker: embeddingRanker(provider, { cache: store.toolVectors, logger }),
      ...hooks.chat,
    });
    chatSettings = () => chat.settings();
    if (store) pruning = pruneAuditDaily(store, auditRetentionDays(env), logger);
    bot = createSlackBot({ config, chat, people, store, logger, onToken: (token) => redactor.pin([token]) });
    // From here a signal shuts down cleanly, also while Slack is still being reached (start may retry
    // for minutes): the MCP servers' processes never outlive the bot.
    process.once('SIGINT', () => void shutDown('SIGINT'));
    process.once('SIGTERM', () => void shutDown('SIGTERM'));
    await bot.start();
  } catch (error) {
    if (stopping) return;
    if (error instanceof HostError && error.code === 'SLACK_START_FAILED') {
      // Kept running: /healthz answers 503 with the reason until the operator fixes it and restarts.
      logger.error(
        {},
        `cannot start: ${error.message}; /healthz answers 503 with this reason until restarted`,
      );
      return;
    }
    const known = error instanceof HostError && startProblems.has(error.code);
    logger.error({ error }, known ? `cannot start: ${(error as Error).message}` : 'cannot start');
    await bot?.stop(0).catch(() => undefined);
    await people?.close();
    await store?.close();
    await telemetry?.shutdown();
    process.exitCode = 1;
    return;
  }

  // One bad event must never take the app down.
  process.on('unhandledRejection', (reason) =>
    logger.error({ error: reason }, 'unhandled promise rejection'),
  );
  process.on('uncaughtException', (error) => {
    logger.error({ error }, 'uncaught exception; shutting down');
    void people?.close().finally(() => process.exit(1));
  });
}

await main();
