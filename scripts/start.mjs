#!/usr/bin/env node
// `pnpm start`: the Slack bot when SLACK_BOT_TOKEN is set, otherwise the terminal chat.
// `pnpm chat [--once "question"]`: the terminal chat.
import { existsSync } from 'node:fs';

if (existsSync('.env')) process.loadEnvFile('.env');
// config/mcp_servers.json ships the weather server: the apps use it unless MCP_ENABLED says otherwise.
if (!process.env.MCP_ENABLED?.trim()) process.env.MCP_ENABLED = 'true';

const args = process.argv.slice(2);
const chatOnly = args[0] === '--chat';
if (chatOnly) args.shift();

if (!chatOnly && process.env.SLACK_BOT_TOKEN) {
  await import('../apps/slack-bot/dist/main.js');
} else {
  if (!chatOnly) {
    process.stderr.write(
      'SLACK_BOT_TOKEN is not set: starting the terminal chat (README: "Run it in Slack").\n',
    );
  }
  process.argv = [process.argv[0] ?? 'node', 'chat', ...args];
  await import('../apps/cli/dist/main.js');
}
