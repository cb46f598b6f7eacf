#!/usr/bin/env node
// `pnpm deploy-bot <folder>`: a self-contained folder that runs the Slack bot with `node dist/main.js`:
// the bot with its production dependencies, config/mcp_servers.json, and the MCP servers that config
// starts (mcp_servers/<name>, each with its own dependencies), laid out so the config's relative paths
// hold. The Dockerfile copies this folder into its image. Needs `pnpm build` first.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// `pnpm deploy-bot <folder>` runs from the repository root; a relative folder means the caller's.
const target = resolve(process.env.INIT_CWD ?? process.cwd(), process.argv[2] ?? '');
if (!process.argv[2]) {
  process.stderr.write('usage: pnpm deploy-bot <folder>   (an empty or new folder, or an earlier deploy)\n');
  process.exit(2);
}
/** Written into every deploy: the one sign that a non-empty folder may be replaced. */
const marker = '.ai-assistant-deploy';
function refuse(message) {
  process.stderr.write(`deploy-bot: ${message}\n`);
  process.exit(2);
}
/** Whether `child` is `parent` or inside it. */
const within = (parent, child) => {
  const path = relative(parent, child);
  return path === '' || (!path.startsWith('..') && !isAbsolute(path));
};
// Never the repository, a folder holding it, or a folder inside it.
if (within(target, root))
  refuse(`${target} holds the repository; choose a folder outside it, e.g. ../ai-assistant-deploy`);
if (within(root, target))
  refuse(`${target} is inside the repository; choose a folder outside it, e.g. ../ai-assistant-deploy`);
if (existsSync(target)) {
  if (!statSync(target).isDirectory()) refuse(`${target} is a file, not a folder`);
  const entries = readdirSync(target);
  if (entries.length > 0 && !entries.includes(marker))
    refuse(
      `${target} is not empty and holds no earlier deploy (no ${marker} file); nothing was changed. Choose an empty or new folder.`,
    );
  // An earlier deploy is replaced only when it holds nothing but what that deploy wrote: a store
  // (.data, when DATA_DIR was left unset there), an .env or a log would be lost with it.
  if (entries.includes(marker)) {
    let written = [];
    try {
      written = JSON.parse(readFileSync(join(target, marker), 'utf8')).written ?? [];
    } catch {
      written = ['README.md', 'config', 'dist', 'mcp_servers', 'node_modules', 'package.json'];
    }
    const kept = entries.filter((entry) => entry !== marker && !written.includes(entry));
    if (kept.length > 0)
      refuse(
        `${target} holds ${kept.join(', ')}, which the last deploy did not write (a store, settings?); nothing was changed. Move them out (keep DATA_DIR outside the deploy folder) or deploy to a new folder.`,
      );
  }
}
const pnpmVersion = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager.split('@')[1];
/**
 * pnpm deploy links the package's bins at the target taken relative to the workspace but resolved from
 * the package's own folder, so a stray `node_modules/.bin` appears elsewhere (inside the repository when
 * the target is outside it). The first folder of that path that did not exist before is removed after.
 */
function strayBinFolder(packageFolder, folder) {
  let stray = resolve(packageFolder, relative(root, folder));
  if (stray === folder || within(folder, stray) || existsSync(stray)) return undefined;
  while (!existsSync(dirname(stray))) stray = dirname(stray);
  return stray;
}

function deploy(name, folder, packageFolder) {
  const stray = strayBinFolder(packageFolder, folder);
  const result = spawnSync(
    'npx',
    ['--yes', `pnpm@${pnpmVersion}`, '--filter', name, 'deploy', '--prod', '--legacy', folder],
    { cwd: root, encoding: 'utf8' },
  );
  if (result.status !== 0) {
    process.stderr.write(
      `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? `${result.error.message}\n` : ''}`,
    );
    process.stderr.write(`deploying ${name} failed\n`);
    process.exit(1);
  }
  if (stray) rmSync(stray, { recursive: true, force: true });
}

const builtOk = ['apps/slack-bot', 'mcp_servers/weather', 'mcp_servers/knowledge'].every((folder) =>
  existsSync(join(root, folder, 'dist')),
);
if (!builtOk) {
  process.stderr.write('build first: pnpm build\n');
  process.exit(1);
}
// Only an empty folder or an earlier deploy (checked above) is replaced.
rmSync(target, { recursive: true, force: true });
deploy('@ai-assistant/slack-bot', target, join(root, 'apps', 'slack-bot'));
const config = JSON.parse(readFileSync(join(root, 'config', 'mcp_servers.json'), 'utf8'));
for (const [name, entry] of Object.entries(config.mcpServers)) {
  const local = (entry.args ?? []).find((arg) => arg.startsWith('../mcp_servers/'));
  if (!local) continue; // a server started another way (npx, a URL) needs nothing here
  const folder = local.split('/')[2];
  const manifest = JSON.parse(readFileSync(join(root, 'mcp_servers', folder, 'package.json'), 'utf8'));
  deploy(manifest.name, join(target, 'mcp_servers', folder), join(root, 'mcp_servers', folder));
  process.stderr.write(`included MCP server ${name} (${manifest.name})\n`);
}
mkdirSync(join(target, 'config'), { recursive: true });
cpSync(join(root, 'config', 'mcp_servers.json'), join(target, 'config', 'mcp_servers.json'));
// The shipped knowledge entry reads ../knowledge (KNOWLEDGE_DIR may name another folder).
if (existsSync(join(root, 'knowledge')))
  cpSync(join(root, 'knowledge'), join(target, 'knowledge'), { recursive: true });
// What this deploy wrote: the next one replaces the folder only if nothing else was added to it.
writeFileSync(
  join(target, marker),
  `${JSON.stringify({ note: 'Written by pnpm deploy-bot: the next deploy may replace what it lists.', written: readdirSync(target).sort() })}\n`,
);
process.stdout.write(
  `Deployed to ${target}: run it there with MCP_ENABLED=true node dist/main.js (set DATA_DIR to a folder outside it)\n`,
);
