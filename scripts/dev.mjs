#!/usr/bin/env node
// `pnpm dev [--chat] [chat arguments]`: every package rebuilt on change by `tsc --watch`, and the app (the
// Slack bot when SLACK_BOT_TOKEN is set, otherwise the terminal chat) in the foreground with this
// terminal's stdin, restarted once per settled rebuild of any package or MCP server it uses.
// It runs outside turbo, so the whole environment (.env and the shell's variables) reaches the app.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, watch } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildAll } from './lib/build.mjs';
import { watchLaunchers } from './lib/launcher-watch.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const settleMs = Number(process.env.DEV_SETTLE_MS || 500);
const say = (text) => process.stderr.write(`[dev] ${text}\n`);

// Every workspace that builds with tsc: packages, apps and MCP servers alike.
const workspaces = ['packages', 'apps', 'mcp_servers'].flatMap((group) =>
  readdirSync(join(root, group))
    .map((name) => join(root, group, name))
    .filter((folder) => existsSync(join(folder, 'tsconfig.build.json'))),
);

// A signal, or the end of the npx or pnpm above dev (a signal to them never reaches it, see
// lib/launcher-watch.mjs), stops dev at any point, the first build and the watchers' first pass included:
// every watcher ends with it and the app never starts.
let app;
let watchers = [];
let distWatchers = [];
let timer;
let stopping = false;
async function stop(code) {
  if (stopping) return;
  stopping = true;
  clearTimeout(timer);
  for (const watcher of distWatchers) watcher.close();
  for (const child of watchers) child.kill('SIGTERM');
  if (process.stdin.isRaw) leaveRawMode();
  if (app && app.exitCode === null && app.signalCode === null) {
    const exited = new Promise((resolve) => app.once('exit', resolve));
    app.kill('SIGTERM');
    await exited;
  }
  process.exit(code);
}
/** When Ctrl-C was last pressed: however the app ends soon after (it got the same SIGINT), dev exits 0. */
let interruptedAt = 0;
const interrupted = () => Date.now() - interruptedAt < 30_000;
// Ctrl-C reaches the app as well (same terminal) and the app decides: the chat cancels an answer or
// quits, the bot shuts down; when it exits, dev ends with it, exit code 0. Without an app, dev ends.
process.on('SIGINT', () => {
  interruptedAt = Date.now();
  if (!app || app.exitCode !== null || app.signalCode !== null) void stop(0);
});
process.on('SIGTERM', () => void stop(0));
process.on('SIGHUP', () => void stop(0));
watchLaunchers(() => void stop(0));
// Until the app has the terminal, Ctrl-C is read here as a key rather than sent as SIGINT to every process
// of the terminal: pnpm's own shell would die of it and pnpm report "ELIFECYCLE Command failed".
const onKey = (key) => {
  if (!key.includes(0x03) && !key.includes(0x04)) return;
  if (stopping) process.exit(0);
  interruptedAt = Date.now();
  if (app) say('stopping the bot (Ctrl-C again to leave at once)');
  void stop(0);
};
function leaveRawMode() {
  process.stdin.off('data', onKey);
  process.stdin.pause();
  process.stdin.setRawMode(false);
}
// A terminal that went away (its window closed, the npx above dev ended) answers EIO: nothing to restore.
process.stdin.on('error', (error) => {
  if (error.code !== 'EIO') throw error;
});
if (process.stdin.isTTY) {
  process.stdin.setRawMode(true);
  process.stdin.on('data', onKey);
}

// 1. One full build first (turbo caches it), with progress; turbo's output only when it fails.
if (!(await buildAll(root, { say }))) {
  say('the first build failed; fix it and run pnpm dev again');
  process.exit(1);
}

// Which app runs (as start.mjs decides): the bot with a Slack token (from the shell or .env), else the chat.
const { loadDotEnv } = await import('../packages/host-core/dist/index.js');
loadDotEnv();
const botInForeground =
  process.stdin.isTTY === true &&
  !process.argv.slice(2).includes('--chat') &&
  Boolean(process.env.SLACK_BOT_TOKEN || process.env.SLACK_CLIENT_ID);

// 2. A tsc watcher per workspace; only its errors are shown, each with its package's name. A build with
// errors writes nothing (--noEmitOnError), so the app keeps running the last good build.
const tsc = join(root, 'node_modules', '.bin', 'tsc');
const nameOf = (folder) => JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')).name;
/** Workspaces whose last build had type errors, with how many. */
const broken = new Map();
// Each watcher's first pass type-checks its whole package: minutes on a busy 2-core machine, so dev says
// how far they got rather than nothing.
let watching = 0;
say(`watching: starting ${workspaces.length} tsc watchers (their first pass takes 1–4 minutes)…`);
watchers = workspaces.map((folder) => {
  const name = nameOf(folder);
  const child = spawn(
    tsc,
    ['-p', 'tsconfig.build.json', '--watch', '--preserveWatchOutput', '--pretty', 'false', '--noEmitOnError'],
    { cwd: folder, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  child.ready = new Promise((resolve) => {
    child.stdout.setEncoding('utf8');
    let pending = '';
    child.stdout.on('data', (text) => {
      const lines = (pending + text).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (/error TS\d+/.test(line)) process.stderr.write(`[dev] ${name}: ${line.trim()}\n`);
        const found = /Found (\d+) errors?\. Watching for file changes/.exec(line);
        if (!found) continue;
        const errors = Number(found[1]);
        if (errors > 0) {
          broken.set(name, errors);
          say(
            `${name}: ${errors} type error${errors === 1 ? '' : 's'}; nothing rebuilt, the app keeps running the last good build`,
          );
        } else if (broken.delete(name)) say(`${name}: type errors fixed`);
        if (!child.watching) {
          child.watching = true;
          watching += 1;
          say(`watching: ${watching}/${workspaces.length} ready${watching < workspaces.length ? '…' : ''}`);
        }
        resolve();
      }
    });
  });
  return child;
});
await Promise.all(watchers.map((child) => child.ready));

// 3. The app in the foreground, restarted once per settled rebuild.
let restarting = false;
function startApp() {
  app = spawn(
    process.execPath,
    [join(root, 'scripts', 'start.mjs'), '--no-build', ...process.argv.slice(2)],
    // The bot reads no input: dev keeps the terminal (see Ctrl-C below); the chat reads it itself.
    { cwd: root, stdio: [botInForeground ? 'ignore' : 'inherit', 'inherit', 'inherit'] },
  );
  app.on('exit', (code, signal) => {
    if (restarting || stopping) return;
    if (code === 0 || interrupted()) return void stop(0); // the app was quit: so is dev
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

const dists = workspaces.map((folder) => join(folder, 'dist')).filter((folder) => existsSync(folder));
distWatchers = dists.map((folder) =>
  watch(folder, { recursive: true }, () => {
    clearTimeout(timer);
    timer = setTimeout(() => void restart(), settleMs);
  }),
);

// With the bot in a terminal, Ctrl-C stays a key read here (see onKey): it stops the bot (SIGTERM: answers
// finish, servers close), then dev, exit code 0; a second Ctrl-C leaves at once. The chat reads the
// terminal itself.
if (!botInForeground && process.stdin.isRaw) leaveRawMode();
if (!stopping) startApp();
