#!/usr/bin/env node
// `pnpm start`: the Slack bot when SLACK_BOT_TOKEN (or SLACK_CLIENT_ID, for OAuth) is set, otherwise
// the terminal chat.
// `pnpm chat [--once "question"]`: the terminal chat.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
// `pnpm dev` has built everything already and keeps it built.
const skipBuild = args[0] === '--no-build';
if (skipBuild) args.shift();
const chatOnly = args[0] === '--chat';
if (chatOnly) args.shift();

// Build what the app needs first (turbo caches it); its output is shown only when the build fails.
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const apps = chatOnly ? ['@ai-assistant/cli'] : ['@ai-assistant/slack-bot', '@ai-assistant/cli'];
const build = skipBuild
  ? { status: 0 }
  : spawnSync(
      join(root, 'node_modules', '.bin', 'turbo'),
      [
        'run',
        'build',
        ...apps.map((app) => `--filter=${app}...`),
        '--filter=@ai-assistant/mcp-server-weather',
        '--filter=@ai-assistant/mcp-server-knowledge',
        '--output-logs=errors-only',
      ],
      { cwd: root, encoding: 'utf8', env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' } },
    );
if (build.status !== 0) {
  process.stderr.write(
    `${build.stdout ?? ''}${build.stderr ?? ''}${build.error ? `${build.error.message}\n` : ''}`,
  );
  process.stderr.write('The build failed; see above.\n');
  process.exit(build.status ?? 1);
}

// .env is read by the one reader both apps use (host-core's), now that it is built.
const { loadDotEnv } = await import('../packages/host-core/dist/index.js');
loadDotEnv();
// config/mcp_servers.json ships the weather server: the apps use it unless MCP_ENABLED says otherwise.
if (!process.env.MCP_ENABLED?.trim()) process.env.MCP_ENABLED = 'true';

if (!chatOnly && (process.env.SLACK_BOT_TOKEN || process.env.SLACK_CLIENT_ID)) {
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
