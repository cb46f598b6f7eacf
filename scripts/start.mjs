#!/usr/bin/env node
// `pnpm start`: the Slack bot when SLACK_BOT_TOKEN (or SLACK_CLIENT_ID, for OAuth) is set, otherwise
// the terminal chat.
// `pnpm chat [--once "question"]`: the terminal chat.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildAll } from './lib/build.mjs';
import { watchLaunchers } from './lib/launcher-watch.mjs';

const args = process.argv.slice(2);
// `pnpm dev` has built everything already and keeps it built.
const skipBuild = args[0] === '--no-build';
if (skipBuild) args.shift();
const chatOnly = args[0] === '--chat';
if (chatOnly) args.shift();

// Build every workspace first, so a server just added or edited under mcp_servers/ is current (turbo's
// cache keeps the unchanged ones instant); progress on stderr, turbo's output only when the build fails.
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
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
