#!/usr/bin/env node
// `pnpm dev [--chat] [chat arguments]`: every package rebuilt on change by `tsc --watch`, and the app (the
// Slack bot when SLACK_BOT_TOKEN is set, otherwise the terminal chat) in the foreground with this
// terminal's stdin, restarted once per settled rebuild of any package or MCP server it uses.
// It runs outside turbo, so the whole environment (.env and the shell's variables) reaches the app.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, watch } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const settleMs = Number(process.env.DEV_SETTLE_MS || 500);
const say = (text) => process.stderr.write(`[dev] ${text}\n`);

// Every workspace that builds with tsc: packages, apps and MCP servers alike.
const workspaces = ['packages', 'apps', 'mcp_servers'].flatMap((group) =>
  readdirSync(join(root, group))
    .map((name) => join(root, group, name))
    .filter((folder) => existsSync(join(folder, 'tsconfig.build.json'))),
);

// 1. One full build first (turbo caches it), quiet unless it fails.
const build = spawnSync(
  join(root, 'node_modules', '.bin', 'turbo'),
  ['run', 'build', '--output-logs=errors-only'],
  {
    cwd: root,
    encoding: 'utf8',
  },
);
if (build.status !== 0) {
  process.stderr.write(`${build.stdout ?? ''}${build.stderr ?? ''}`);
  say('the first build failed; fix it and run pnpm dev again');
  process.exit(1);
}

// 2. A tsc watcher per workspace; only its errors are shown.
const tsc = join(root, 'node_modules', '.bin', 'tsc');
const watchers = workspaces.map((folder) => {
  const child = spawn(tsc, ['-p', 'tsconfig.build.json', '--watch', '--preserveWatchOutput'], {
    cwd: folder,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.ready = new Promise((resolve) => {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text) => {
      for (const line of text.split('\n')) if (/error TS\d+/.test(line)) process.stderr.write(`${line}\n`);
      if (/Watching for file changes/.test(text)) resolve();
    });
  });
  return child;
});
await Promise.all(watchers.map((child) => child.ready));

// 3. The app in the foreground, restarted once per settled rebuild.
let app;
let restarting = false;
let stopping = false;
function startApp() {
  app = spawn(
    process.execPath,
    [join(root, 'scripts', 'start.mjs'), '--no-build', ...process.argv.slice(2)],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  app.on('exit', (code, signal) => {
    if (restarting || stopping) return;
    if (code === 0) return void stop(0); // the chat was quit: so is dev
    say(`the app exited (${signal ?? `code ${code}`}); it restarts on the next change`);
    app = undefined;
  });
}
async function restart() {
  say('rebuilt: restarting the app');
  restarting = true;
  if (app && app.exitCode === null && app.signalCode === null) {
    const exited = new Promise((resolve) => app.once('exit', resolve));
    app.kill('SIGTERM'); // both apps close their MCP servers on SIGTERM, leaving no process behind
    await exited;
  }
  restarting = false;
  if (!stopping) startApp();
}

let timer;
const dists = workspaces.map((folder) => join(folder, 'dist')).filter((folder) => existsSync(folder));
const distWatchers = dists.map((folder) =>
  watch(folder, { recursive: true }, () => {
    clearTimeout(timer);
    timer = setTimeout(() => void restart(), settleMs);
  }),
);

async function stop(code) {
  if (stopping) return;
  stopping = true;
  clearTimeout(timer);
  for (const watcher of distWatchers) watcher.close();
  for (const child of watchers) child.kill('SIGTERM');
  if (app && app.exitCode === null && app.signalCode === null) {
    const exited = new Promise((resolve) => app.once('exit', resolve));
    app.kill('SIGTERM');
    await exited;
  }
  process.exit(code);
}
// Ctrl-C reaches the app as well (same terminal) and the app decides: the chat cancels an answer or
// quits, the bot shuts down; when it exits, dev ends with it, exit code 0. Without an app, dev ends.
process.on('SIGINT', () => {
  if (!app || app.exitCode !== null || app.signalCode !== null) void stop(0);
});
process.on('SIGTERM', () => void stop(0));
startApp();
