#!/usr/bin/env node
// `pnpm start`: the Slack bot when SLACK_BOT_TOKEN (or SLACK_CLIENT_ID, for OAuth) is set, otherwise
// the terminal chat.
// `pnpm chat [--once "question"]`: the terminal chat.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildAll } from './lib/build.mjs';
import { watchLaunchers } from './lib/launcher-watch.mjs';

const args = process.argv.slice(2);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// `pnpm start --help` needs no build. (`pnpm chat --help` builds, then the chat prints its own usage.)
if ((args.includes('--help') || args.includes('-h')) && !args.includes('--chat')) {
  // The variables are .env.example's, with its comments: one list, kept true by test/environment-docs.test.ts.
  const example = readFileSync(join(root, '.env.example'), 'utf8')
    .split('\n')
    .filter((line) => !line.startsWith('# Copy to .env'))
    .map((line) => line.replace(/^# ?/, '  ').replace(/^([A-Z][A-Z0-9_]*)=/, '  $1='))
    .join('\n');
  // The chat's commands are the table it dispatches on (apps/cli/chat-commands.json), with the chat's layout.
  const commands = JSON.parse(readFileSync(join(root, 'apps', 'cli', 'chat-commands.json'), 'utf8'));
  const width = Math.max(...commands.map((command) => command.usage.length));
  const chatCommands = commands
    .map((command) => `  ${command.usage.padEnd(width)}  ${command.summary}`)
    .join('\n');
  process.stdout.write(`pnpm start            the Slack bot when SLACK_BOT_TOKEN (or SLACK_CLIENT_ID) is set, else the terminal chat
pnpm chat [--once "question"] [--yes]
                      the terminal chat; its commands:
${chatCommands}
pnpm check-config     checks config/mcp_servers.json (and .local.json), starts each server once, lists its tools
pnpm demo             the Slack bot against a local Slack, scripted model and JMA, talked to from the terminal
pnpm dev              rebuilds on every change and restarts the bot (or the chat: pnpm dev --chat)

Environment (also read from .env; set in the shell wins):
${example}
`);
  process.exit(0);
}
// `pnpm dev` has built everything already and keeps it built.
const skipBuild = args[0] === '--no-build';
if (skipBuild) args.shift();
const chatOnly = args[0] === '--chat';
if (chatOnly) args.shift();

// Build every workspace first, so a server just added or edited under mcp_servers/ is current (turbo's
// cache keeps the unchanged ones instant); progress on stderr, turbo's output only when the build fails.
if (!skipBuild && !(await buildAll(root))) {
  process.stderr.write('The build failed; see above.\n');
  process.exit(1);
}

// .env is read by the one reader both apps use (host-core's), now that it is built.
const { loadDotEnv } = await import('../packages/host-core/dist/index.js');
loadDotEnv();
// config/mcp_servers.json ships the weather server: the apps use it unless MCP_ENABLED says otherwise.
if (!process.env.MCP_ENABLED?.trim()) process.env.MCP_ENABLED = 'true';

// A signal to the npx or pnpm that started this script never reaches it (lib/launcher-watch.mjs): when
// one of them ends, the app gets the SIGTERM it missed and stops as it does on a signal, servers and all.
watchLaunchers(() => process.kill(process.pid, 'SIGTERM'));

if (!chatOnly && (process.env.SLACK_BOT_TOKEN || process.env.SLACK_CLIENT_ID)) {
  // In a terminal, Ctrl-C is read as a key and handed to the bot as SIGINT: sent by the terminal it
  // would also kill pnpm's shell, which then reports "ELIFECYCLE Command failed" over a clean stop.
  if (process.stdin.isTTY) {
    // A terminal that went away answers EIO; the launcher watch above stops the bot.
    process.stdin.on('error', (error) => {
      if (error.code !== 'EIO') throw error;
    });
    process.stdin.setRawMode(true);
    process.stdin.on('data', (key) => {
      if (!key.includes(0x03)) return;
      if (process.listenerCount('SIGINT') > 0) process.emit('SIGINT', 'SIGINT');
      else process.exit(130); // not started far enough to stop cleanly: nothing to wait for
    });
  }
  await import('../apps/slack-bot/dist/main.js');
} else {
  if (!chatOnly) {
    process.stderr.write(
      'SLACK_BOT_TOKEN (or SLACK_CLIENT_ID) is not set: starting the terminal chat (README: "Run it in Slack").\n',
    );
  }
  process.argv = [process.argv[0] ?? 'node', 'chat', ...args];
  await import('../apps/cli/dist/main.js');
}
