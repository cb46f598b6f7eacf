#!/usr/bin/env node
// `pnpm demo`: the Slack bot, for real, against a Slack, a model and JMA that all run on this machine, so a
// newcomer sees it work without an account or a key. You type as a person in a Slack channel; the bot's
// replies in the thread are printed here. The model is scripted: it calls the tool you name
// (`call <tool> {json}`) or the weather tool for 東京, 大阪 or 八丈島. One server (`tracker`) is protected
// by OAuth, with an authorization server on this machine too: `/connect tracker` signs you in through the
// bot's Connect link as a browser would. What the fakes are: packages/test-kit.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { buildAll } from './lib/build.mjs';
import { watchLaunchers } from './lib/launcher-watch.mjs';
import { readable } from './lib/slack-display.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const say = (text) => process.stdout.write(`${text}\n`);
const usage = `ai-assistant demo — the bot runs against a Slack, a model and JMA on this machine.
Type as a person in #demo; each line without a thread starts one. Try:
  東京の天気を教えて
  call search_knowledge {"query": "KNOWLEDGE_DIR"}
  call delete_record {"id": "r1"}     (a write: the bot asks first; answer with /press)
  /assistant servers        (the bot's slash command)
  /connect tracker          sign in to the OAuth-protected server (an authorization server on this
                            machine; this terminal plays your browser), then: call whoami
  /press <n>                press button n of the last answer
  /new                      start a new thread next
  /exit`;

if (args.includes('--help') || args.includes('-h')) {
  say(`Usage: pnpm demo [--no-build]\n\n${usage}`);
  process.exit(0);
}

if (!args.includes('--no-build') && !(await buildAll(root))) {
  process.stderr.write('The build failed; see above.\n');
  process.exit(1);
}

const testKit = await import(join(root, 'packages', 'test-kit', 'dist', 'index.js'));
const { startFakeJma } = await import(join(root, 'mcp_servers', 'weather', 'dist', 'testing', 'index.js'));

/** A free loopback port for the bot's HTTP server (/healthz, the OAuth callback). */
const freePort = () =>
  new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const channel = 'C0DEMO';
const [slack, llm, jma, authorization] = await Promise.all([
  testKit.startFakeSlack(),
  testKit.startFakeVendor(),
  startFakeJma(),
  // A real OAuth authorization server (oidc-provider) that signs in whoever asks, as `demo-person`.
  testKit.startAuthorizationServer({}),
]);
// A real MCP server (Streamable HTTP) that requires a bearer token of that authorization server, and
// says so in its protected-resource metadata; its tool `whoami` says whose token it got.
const tracker = await testKit.startProtectedServer(authorization.issuer);
authorization.resources.push(tracker.url);
llm.respondWith(testKit.demoModel);
const scratch = mkdtempSync(join(tmpdir(), 'ai-assistant-demo-'));
const config = join(scratch, 'mcp_servers.json');
writeFileSync(
  config,
  JSON.stringify({
    mcpServers: {
      weather: {
        command: process.execPath,
        args: [join(root, 'mcp_servers', 'weather', 'dist', 'index.js')],
        // Recorded JMA data, and the day it was recorded as "today".
        env: { JMA_BASE_URL: jma.baseUrl, MCP_WEATHER_NOW: '2026-03-12T05:30:00+09:00' },
        status_message: '🌤️ 天気を調べています…',
      },
      // A tool that changes things: the bot asks the person (buttons) before it runs.
      records: { command: process.execPath, args: [testKit.recordsServerPath] },
      knowledge: {
        command: process.execPath,
        args: [join(root, 'mcp_servers', 'knowledge', 'dist', 'index.js'), '--docs', join(root, 'knowledge')],
      },
      // Each person signs in with their own account (/connect tracker).
      tracker: { type: 'http', url: tracker.url, oauth: true },
    },
  }),
);
const port = await freePort();
const origin = `http://127.0.0.1:${port}`;
const bot = spawn(process.execPath, [join(root, 'apps', 'slack-bot', 'dist', 'main.js')], {
  cwd: root,
  env: {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    SLACK_BOT_TOKEN: 'xoxb-demo',
    SLACK_APP_TOKEN: 'xapp-demo',
    SLACK_API_URL: slack.apiUrl,
    PORT: String(port),
    // Where the authorization server sends the browser back (<PUBLIC_URL>/oauth/callback).
    PUBLIC_URL: origin,
    OPENAI_API_KEY: 'sk-demo-key',
    OPENAI_BASE_URL: llm.baseURL,
    MCP_ENABLED: 'true',
    MCP_SERVERS_CONFIG: config,
    DATA_DIR: join(scratch, 'data'),
    LOG_LEVEL: args.includes('--verbose') ? 'info' : 'warn',
  },
  stdio: ['ignore', 'inherit', 'inherit'],
});
let stopping = false;
const exited = new Promise((resolve) => bot.once('exit', resolve));
void exited.then(() => {
  if (!stopping) {
    say('The bot stopped; see its log above.');
    void stop(1);
  }
});

async function stop(code) {
  if (stopping) return;
  stopping = true;
  if (bot.exitCode === null && bot.signalCode === null) {
    bot.kill('SIGTERM');
    await exited;
  }
  await Promise.all([slack.close(), llm.close(), jma.close(), tracker.close(), authorization.close()]);
  rmSync(scratch, { recursive: true, force: true });
  process.exit(code);
}
process.once('SIGINT', () => void stop(0));
process.once('SIGTERM', () => void stop(0));
process.once('SIGHUP', () => void stop(0));
// A signal to the npx or pnpm above the demo never reaches it (see lib/launcher-watch.mjs): their end
// stops it, the bot, its servers and the fakes, and removes its folder.
watchLaunchers(() => void stop(0));

await slack.connected();
say(usage);

/** A message the bot shows while it works ("💭 考えています…", "⏳ 順番待ちです…"), replaced by the answer. */
const placeholder = (message) => message.streaming || /^(💭|⏳|🔧|🔎)/u.test(message.text);
const answers = (threadTs) =>
  slack
    .thread(channel, threadTs)
    .filter((message) => message.user === testKit.botUserId && !placeholder(message));

/** The people the demo's messages name: the person typing here, and the bot. */
const people = { [testKit.humanUserId]: 'you', [testKit.botUserId]: 'assistant' };
/** Slack's text as a person reads it in Slack (names, links, no escapes); what the bot sends stays mrkdwn. */
const shown = (text) => readable(text ?? '', people);

/** Buttons of the answers printed last, numbered for /press. */
let buttons = [];
const printed = new Set();
function printNew(threadTs) {
  for (const message of answers(threadTs)) {
    const key = `${message.ts}\u0000${message.text}`;
    if (printed.has(key)) continue;
    printed.add(key);
    say(`bot: ${shown(message.text)}`);
    for (const block of message.blocks ?? []) {
      for (const element of block.elements ?? []) {
        if (element.type !== 'button') continue;
        buttons.push({ messageTs: message.ts, actionId: element.action_id, value: element.value ?? '' });
        say(
          `     [${buttons.length}] ${shown(element.text?.text ?? element.action_id)}${element.url ? ` → ${element.url}` : ''}`,
        );
      }
    }
  }
}

/**
 * Waits (bounded) until the thread holds an answer not printed yet and nothing is still being written, or
 * until a new message asks the person something (buttons): the answer waits for them then.
 */
async function awaitAnswer(threadTs) {
  const fresh = () =>
    answers(threadTs).filter((message) => !printed.has(`${message.ts}\u0000${message.text}`));
  const asks = (message) =>
    (message.blocks ?? []).some((block) =>
      (block.elements ?? []).some((element) => element.type === 'button'),
    );
  const working = () =>
    slack
      .thread(channel, threadTs)
      .some((message) => message.user === testKit.botUserId && placeholder(message));
  const settled = () => fresh().length > 0 && (!working() || fresh().some(asks));
  const deadline = Date.now() + 120_000;
  while (!settled() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  printNew(threadTs);
}

/**
 * `/connect <server>`: the bot's slash command gives a private Connect link; this terminal then does what
 * the person's browser does: confirms on the bot's start page, signs in at the authorization server and
 * follows its redirect back to the bot's callback, with the start page's cookie.
 */
async function connect(server) {
  const responses = slack.responses.length;
  await slack.command(`connect ${server}`, { channel });
  const deadline = Date.now() + 60_000;
  while (slack.responses.length === responses && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 100));
  const offer = slack.responses[responses];
  const link = (offer?.blocks ?? [])
    .flatMap((block) => block.elements ?? [])
    .find((element) => element.type === 'button' && element.url)?.url;
  if (!link) return say(`bot: ${shown(offer?.text ?? 'no answer')}`);
  say(`bot: ${shown(offer.text)}\n     (your browser opens ${link})`);
  const confirmed = await fetch(`${origin}/oauth/start`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    body: new URLSearchParams({ t: new URL(link).searchParams.get('t') ?? '' }),
  });
  const cookie = (confirmed.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  const location = confirmed.headers.get('location');
  if (!location) return say(`The start page refused: HTTP ${confirmed.status}`);
  const back = await testKit.followAuthorization(location, { account: 'demo-person' });
  const page = await fetch(back, { headers: { cookie } });
  say(
    `browser: ${(await page.text())
      .replace(/<title>[\s\S]*?<\/title>/, '')
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()}`,
  );
}

let thread;
// In a terminal, readline reads keys itself: Ctrl-C stops the demo here, exit code 0, instead of reaching
// every process of the terminal (pnpm would report "ELIFECYCLE Command failed" over a clean stop).
const terminal = process.stdin.isTTY === true;
const input = createInterface({ input: process.stdin, output: process.stdout, terminal });
input.on('SIGINT', () => void stop(0));
// A terminal that went away answers EIO: the demo stops as on SIGHUP.
process.stdin.on('error', (error) => {
  if (error.code !== 'EIO') throw error;
  void stop(0);
});
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (error) => {
    if (error.code !== 'EIO' && error.code !== 'EPIPE') throw error;
  });
input.setPrompt('> ');
input.prompt();
for await (const raw of input) {
  const line = raw.trim();
  if (line === '/exit' || line === '/quit') break;
  if (line === '/new') thread = undefined;
  else if (line.startsWith('/press')) {
    const chosen = buttons[Number(line.split(/\s+/)[1]) - 1];
    if (!chosen) say('No such button: /press <n>, n as printed beside it.');
    else if (thread) {
      await slack.press({
        channel,
        messageTs: chosen.messageTs,
        actionId: chosen.actionId,
        value: chosen.value,
      });
      await awaitAnswer(thread);
    }
  } else if (line.startsWith('/connect')) {
    await connect(line.split(/\s+/)[1] ?? '');
  } else if (line.startsWith('/assistant')) {
    // A slash command is answered in its acknowledgement or through its response_url.
    const responses = slack.responses.length;
    const envelope = await slack.command(line.replace(/^\/assistant\s*/, ''), { channel });
    const acked = () => slack.ackPayloads.get(envelope)?.text;
    const deadline = Date.now() + 60_000;
    while (slack.responses.length === responses && !acked() && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    if (acked()) say(`bot: ${shown(acked())}`);
    for (const response of slack.responses.slice(responses))
      say(`bot: ${response.text ? shown(response.text) : JSON.stringify(response)}`);
  } else if (line) {
    const { ts } = await slack.mention(channel, line, thread ? { threadTs: thread } : {});
    thread ??= ts;
    buttons = [];
    await awaitAnswer(thread);
  }
  input.prompt();
}
await stop(0);
