#!/usr/bin/env node
// `pnpm deploy-bot <folder>`: a self-contained folder that runs the Slack bot with `node dist/main.js`:
// the bot with its production dependencies, config/mcp_servers.json, and the MCP servers that config
// starts (mcp_servers/<name>, each with its own dependencies), laid out so the config's relative paths
// hold. The Dockerfile copies this folder into its image. Needs `pnpm build` first.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = resolve(process.argv[2] ?? '');
if (!process.argv[2]) {
  process.stderr.write('usage: pnpm deploy-bot <folder>   (an empty or new folder)\n');
  process.exit(2);
}
const pnpmVersion = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager.split('@')[1];
function deploy(name, folder) {
  const result = spawnSync(
    'npx',
    ['--yes', `pnpm@${pnpmVersion}`, '--filter', name, 'deploy', '--prod', '--legacy', folder],
    { cwd: root, encoding: 'utf8' },
  );
  if (result.status !== 0) {
    process.stderr.write(`${result.stdout}${result.stderr}`);
    process.stderr.write(`deploying ${name} failed\n`);
    process.exit(1);
  }
}

const builtOk = ['apps/slack-bot', 'mcp_servers/weather', 'mcp_servers/knowledge'].every((folder) =>
  existsSync(join(root, folder, 'dist')),
);
if (!builtOk) {
  process.stderr.write('build first: pnpm build\n');
  process.exit(1);
}
rmSync(target, { recursive: true, force: true });
deploy('@ai-assistant/slack-bot', target);
const config = JSON.parse(readFileSync(join(root, 'config', 'mcp_servers.json'), 'utf8'));
for (const [name, entry] of Object.entries(config.mcpServers)) {
  const local = (entry.args ?? []).find((arg) => arg.startsWith('../mcp_servers/'));
  if (!local) continue; // a server started another way (npx, a URL) needs nothing here
  const folder = local.split('/')[2];
  const manifest = JSON.parse(readFileSync(join(root, 'mcp_servers', folder, 'package.json'), 'utf8'));
  deploy(manifest.name, join(target, 'mcp_servers', folder));
  process.stderr.write(`included MCP server ${name} (${manifest.name})\n`);
}
mkdirSync(join(target, 'config'), { recursive: true });
cpSync(join(root, 'config', 'mcp_servers.json'), join(target, 'config', 'mcp_servers.json'));
process.stdout.write(`Deployed to ${target}: run it there with MCP_ENABLED=true node dist/main.js\n`);
