import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { type People, startPeople } from '@ai-assistant/assistant';
import { ChatService } from '@ai-assistant/host-core';
import { OpenAIProvider } from '@ai-assistant/llm-providers';
import { type FakeJma, startFakeJma } from '@ai-assistant/mcp-server-weather/testing';
import { openStore, type Store } from '@ai-assistant/store';
import {
  botUserId,
  embeddedStoreFolder,
  type FakeSlack,
  type FakeVendor,
  freePort,
  recordingLogger,
  startFakeSlack,
  startFakeVendor,
  weatherModel,
  writeMcpConfig,
} from '@ai-assistant/test-kit';
import { createSlackBot, type SlackBot } from '../src/app.js';
import { readBotConfig } from '../src/config.js';
import { oauthOptions, operatorHooks } from '../src/operations.js';
import { connectCommand } from '../src/slack/people.js';

export { freePort, writeMcpConfig };

/** The built bot (or any entry) as a process: its combined output so far, and its exit code. */
export function runBotProcess(entry: string, cwd: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [entry], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolvePromise) => child.once('exit', resolvePromise));
  return { child, exited, output: () => output };
}

/** Everything an end-to-end test talks to, all on loopback. */
export interface Harness {
  slack: FakeSlack;
  llm: FakeVendor;
  jma: FakeJma;
  bot: SlackBot;
  /** The app's one door to MCP (its catalog() is the operator's view of the servers). */
  people: People;
  /** The bot's store: PGlite in a temporary folder, one per harness. */
  store: Store;
  logger: ReturnType<typeof recordingLogger>;
  port: number;
  /**
   * Stops the bot, its MCP connections and its store, then starts them again on the same store (a
   * restarted process): `bot`, `people` and `store` are the new ones afterwards.
   */
  restart(): Promise<void>;
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
    /** Options of the fake Slack (e.g. Slack's real page size for `conversations.replies`). */
    slack?: Parameters<typeof startFakeSlack>[0];
    /** Serve OAuth sign-ins: PUBLIC_URL is the bot's own loopback address. */
    publicUrl?: boolean;
    /** The clock of MCP (token expiry), the loop and conversation retention. */
    now?: () => Date;
    /** Whether the model reads images (default: by its name, which here says no). */
    vision?: boolean;
  } = {},
): Promise<Harness> {
  const [slack, llm, jma] = await Promise.all([
    startFakeSlack(options.slack),
    startFakeVendor(),
    startFakeJma(),
  ]);
  llm.respondWith(weatherModel);
  const config = writeMcpConfig(jma.baseUrl, options.servers);
  const logger = recordingLogger();
  const provider = new OpenAIProvider({
    model: 'gpt-fake',
    apiKey: 'sk-test-0123456789',
    baseURL: llm.baseURL,
    maxRetries: 0,
    ...(options.vision !== undefined ? { vision: options.vision } : {}),
  });
  const dataDir = embeddedStoreFolder('bot-store-');
  const configure = (port: number) =>
    readBotConfig({
      SLACK_BOT_TOKEN: 'xoxb-test-token',
      SLACK_APP_TOKEN: 'xapp-test-token',
      SLACK_API_URL: slack.apiUrl,
      PORT: String(port),
      ...(options.publicUrl ? { PUBLIC_URL: `http://127.0.0.1:${port}` } : {}),
      ...options.env,
    });
  let port = await freePort();
  let botConfig = configure(port);
  const boot = async () => {
    const store = await openStore({ dataDir, env: {}, logger });
    const hooks = operatorHooks(store, options.env ?? {});
    const people = await startPeople({
      env: {
        ...options.mcpEnv,
        MCP_ENABLED: options.mcpEnabled === false ? 'false' : 'true',
        MCP_SERVERS_CONFIG: config.path,
      },
      logger,
      store,
      connectHint: connectCommand,
      ...hooks.people,
      ...oauthOptions(botConfig.publicUrl),
      ...(options.now ? { now: options.now } : {}),
    });
    const bot = createSlackBot({
      config: botConfig,
      chat: new ChatService({ provider, logger, ...botConfig.chat, ...hooks.chat }),
      people,
      store,
      logger,
      ...(options.now ? { now: options.now } : {}),
    });
    try {
      await bot.start();
    } catch (error) {
      await people.close();
      await store.close();
      throw error;
    }
    return { store, people, bot };
  };
  // A port found free may be taken by another process before the bot binds it (tests run side by
  // side): then the bot starts again on another.
  const bootOnAFreePort = async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await boot();
      } catch (error) {
        if ((error as Error).name !== 'PortInUseError' || attempt >= 5) throw error;
        port = await freePort();
        botConfig = configure(port);
      }
    }
  };
  let running = await bootOnAFreePort();
  if (botConfig.appToken) await slack.connected();
  const stopAll = async () => {
    await running.bot.stop(2000);
    await running.people.close();
    await running.store.close();
  };
  const harness: Harness = {
    slack,
    llm,
    jma,
    bot: running.bot,
    people: running.people,
    store: running.store,
    logger,
    port,
    async restart() {
      await stopAll();
      running = await boot();
      Object.assign(harness, running);
    },
    async close() {
      await stopAll();
      rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
      await Promise.all([slack.close(), llm.close(), jma.close()]);
      config.remove();
    },
  };
  return harness;
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

export const mention = `<@${botUserId}>`;

/** The bot's finished messages in a thread (placeholders still thinking or naming a tool excluded). */
export function answers(harness: Harness, channel: string, threadTs: string) {
  return (
    harness.slack
      .thread(channel, threadTs)
      // Placeholders (thinking, looking up, waiting for the thread's turn) and streams not yet
      // stopped are not answers.
      .filter(
        (message) =>
          message.user === botUserId &&
          !message.streaming &&
          !/考えています|調べています|順番待ち/.test(message.text),
      )
  );
}

/** Waits until a thread holds `count` finished answers and returns them. */
export function answered(harness: Harness, channel: string, threadTs: string, count = 1) {
  return waitFor(() => {
    const found = answers(harness, channel, threadTs);
    return found.length >= count && found;
  });
}

/** Posts "@bot text" (in a thread when given) and delivers its app_mention event; returns its ts. */
export function mentionBot(harness: Harness, channel: string, text: string, threadTs?: string) {
  return harness.slack.mention(channel, text, threadTs ? { threadTs } : {});
}

/** Posts a plain message (a DM, or a reply in a thread) and delivers its `message` event. */
export async function sayInChannel(
  harness: Harness,
  channel: string,
  text: string,
  options: { threadTs?: string; channelType?: string } = {},
) {
  const ts = harness.slack.say(channel, text, options.threadTs ? { threadTs: options.threadTs } : {});
  const thread = options.threadTs ? { thread_ts: options.threadTs } : {};
  await harness.slack.push({
    type: 'message',
    channel,
    channel_type: options.channelType ?? 'channel',
    user: 'UHUMAN01',
    text,
    ts,
    event_ts: ts,
    ...thread,
  });
  return ts;
}

/** The last App Home view published for a person (after the first `after` publishes), as text. */
export const publishedHome = (running: Harness, user: string, after = 0) =>
  running.slack
    .callsOf('views.publish')
    .slice(after)
    .filter((call) => call.args.user_id === user)
    .map((call) => JSON.stringify(call.args.view))
    .at(-1);

/** The person opens the bot's App Home tab. */
export const openHome = (running: Harness, user: string) =>
  running.slack.push({
    type: 'app_home_opened',
    user,
    channel: 'D0HOME',
    tab: 'home',
    event_ts: '1700000000.000100',
  });
