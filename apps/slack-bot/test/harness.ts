import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  ChatService,
  type Logger,
  type McpClientManager,
  startMcpFromEnvironment,
} from '@ai-assistant/host-core';
import { OpenAIProvider } from '@ai-assistant/llm-providers';
import { type FakeJma, startFakeJma } from '@ai-assistant/mcp-server-weather/testing';
import { type FakeVendor, startFakeVendor } from '../../../packages/llm-providers/test/fake-vendor.js';
import { createSlackBot, type SlackBot } from '../src/app.js';
import { readBotConfig } from '../src/config.js';
import { type FakeSlack, startFakeSlack } from './fake-slack.js';
import { weatherModel } from './weather-model.js';

export const weatherEntry = resolve(import.meta.dirname, '../../../mcp_servers/weather/dist/index.js');

/** A logger that keeps lines for assertions. */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => {
    lines.push(
      `${level} ${message} ${JSON.stringify(fields, (_key, value) => (value instanceof Error ? value.message : value))}`,
    );
  };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

export function freePort(): Promise<number> {
  return new Promise((resolvePromise) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolvePromise(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Writes an mcp_servers.json running the real weather server against the fake JMA. */
export function writeMcpConfig(
  jmaBaseUrl: string,
  extra: Record<string, unknown> = {},
): { path: string; remove(): void } {
  const folder = mkdtempSync(join(tmpdir(), 'bot-config-'));
  const path = join(folder, 'mcp_servers.json');
  writeFileSync(
    path,
    JSON.stringify({
      mcpServers: {
        weather: {
          command: process.execPath,
          args: [weatherEntry],
          env: { JMA_BASE_URL: jmaBaseUrl, MCP_WEATHER_NOW: '2026-03-12T05:30:00+09:00' },
          status_message: '🌤️ 天気を調べています…',
        },
        ...extra,
      },
    }),
  );
  return { path, remove: () => rmSync(folder, { recursive: true, force: true }) };
}

/** Everything an end-to-end test talks to, all on loopback. */
export interface Harness {
  slack: FakeSlack;
  llm: FakeVendor;
  jma: FakeJma;
  bot: SlackBot;
  mcp: McpClientManager | undefined;
  logger: ReturnType<typeof memoryLogger>;
  port: number;
  close(): Promise<void>;
}

/** Starts fakes, the real weather server (unless MCP is off) and the Slack app. */
export async function startHarness(
  options: {
    mcpEnabled?: boolean;
    env?: Record<string, string>;
    servers?: Record<string, unknown>;
    /** Variables the MCP config may reference as ${NAME}. */
    mcpEnv?: Record<string, string>;
  } = {},
): Promise<Harness> {
  const [slack, llm, jma] = await Promise.all([startFakeSlack(), startFakeVendor(), startFakeJma()]);
  llm.respondWith(weatherModel);
  const config = writeMcpConfig(jma.baseUrl, options.servers);
  const logger = memoryLogger();
  const mcp = await startMcpFromEnvironment({
    env: {
      ...options.mcpEnv,
      MCP_ENABLED: options.mcpEnabled === false ? 'false' : 'true',
      MCP_SERVERS_CONFIG: config.path,
    },
    logger,
  });
  const provider = new OpenAIProvider({
    model: 'gpt-fake',
    apiKey: 'sk-test-0123456789',
    baseURL: llm.baseURL,
    maxRetries: 0,
  });
  const port = await freePort();
  const botConfig = readBotConfig({
    SLACK_BOT_TOKEN: 'xoxb-test-token',
    SLACK_APP_TOKEN: 'xapp-test-token',
    SLACK_API_URL: slack.apiUrl,
    PORT: String(port),
    ...options.env,
  });
  const bot = createSlackBot({
    config: botConfig,
    chat: new ChatService({ provider, tools: mcp, logger }),
    mcp,
    logger,
  });
  await bot.start();
  if (botConfig.appToken) await slack.connected();
  return {
    slack,
    llm,
    jma,
    bot,
    mcp,
    logger,
    port,
    async close() {
      await bot.stop(2000);
      await mcp?.close();
      await Promise.all([slack.close(), llm.close(), jma.close()]);
      config.remove();
    },
  };
}

/** Waits until `check` returns something truthy (bounded). */
export async function waitFor<T>(check: () => T | undefined | false, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 20));
  }
}
