// A signal sent to the command README starts (`npx --yes pnpm@… start`) never reaches this process: npx
// hands it to the `sh -c pnpm` it started, which dies without passing it on, and pnpm does the same with
// the `sh -c node scripts/start.mjs` below it. The app would run on, with every MCP server, as an orphan.
// So the scripts watch the package-manager processes above them (npm, npx, pnpm and the `sh -c` shells
// between them) and, when one of those ends, stop as they do on SIGTERM. A shell or a supervisor above the
// package manager is not watched: `nohup npx pnpm start &` keeps running when its terminal closes.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** `[parentPid, commandLine]` of a process, or undefined when it is gone or cannot be read. */
function processInfo(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name in parentheses may hold spaces and parentheses: the fields after the last ')' are plain.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    return [parent, command];
  } catch {
    // No /proc (macOS): ps says the same.
    try {
      const line = execFileSync('ps', ['-o', 'ppid=,command=', '-p', String(pid)], {
        encoding: 'utf8',
      }).trim();
      const match = /^(\d+)\s+(.*)$/.exec(line);
      return match ? [Number(match[1]), match[2] ?? ''] : undefined;
    } catch {
      return undefined;
    }
  }
}

/** A package manager, or the shell it runs a script in. */
const launcher = (command) =>
  /(^|[\s/])(npm|npx|pnpm|pnpx|corepack)(\.c?js)?(\s|$)/.test(command) ||
  /(^|\/)(npm-cli|npx-cli|pnpm)\.c?js(\s|$)/.test(command) ||
  /^(\/bin\/|\/usr\/bin\/)?(ba|da)?sh -c /.test(command);

/**
 * The pids of the package manager chain directly above this process, nearest first: every ancestor while
 * it is a launcher, stopping at the first that is not (a terminal's shell, a supervisor) or at pid 1.
 */
export function launcherChain(startPid = process.ppid) {
  const chain = [];
  let pid = startPid;
  while (pid > 1 && chain.length < 16) {
    const info = processInfo(pid);
    if (!info || !launcher(info[1])) break;
    chain.push(pid);
    pid = info[0];
  }
  return chain;
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error?.code === 'EPERM';
  }
};

/**
 * When a process of the launcher chain ends, `onGone` runs once (the scripts send themselves SIGTERM, so
 * the app stops as it does on a signal). Checked every `everyMs`; the timer never keeps the process alive.
 */
export function watchLaunchers(onGone, { everyMs = 500, chain = launcherChain() } = {}) {
  if (chain.length === 0) return () => {};
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent && chain.every(alive)) return;
    clearInterval(timer);
    onGone();
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
