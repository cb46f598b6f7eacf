import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { nodeChildProcess } from '../builtins.js';

const run = (command: string, args: string[]) => promisify(nodeChildProcess().execFile)(command, args);

async function parentMap(): Promise<Map<number, number>> {
  const parents = new Map<number, number>();
  try {
    // Linux: /proc/<pid>/stat holds "pid (comm) state ppid …"; comm may contain spaces and ")".
    for (const entry of await readdir('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (Number.isInteger(ppid)) parents.set(Number(entry), ppid);
    }
    return parents;
  } catch {
    const { stdout } = await run('ps', ['-A', '-o', 'pid=,ppid=']);
    for (const line of stdout.split('\n')) {
      const [pid, ppid] = line.trim().split(/\s+/).map(Number);
      if (pid !== undefined && ppid !== undefined && Number.isInteger(pid)) parents.set(pid, ppid);
    }
    return parents;
  }
}

/** Every live descendant of `pid` (children, grandchildren, …). Best effort; never throws. */
/**
 * Linux: walk /proc/<pid>/task/<tid>/children from `pid` down: a few small reads for the subtree,
 * not one 64 KiB read buffer for every process on the machine. Undefined where that file is missing.
 */
async function childrenWalk(pid: number): Promise<number[] | undefined> {
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const current = queue.shift() as number;
    let tasks: string[];
    try {
      tasks = await readdir(`/proc/${current}/task`);
    } catch {
      if (current === pid) return undefined;
      continue; // gone meanwhile
    }
    for (const task of tasks) {
      let text: string;
      try {
        text = await readFile(`/proc/${current}/task/${task}/children`, 'utf8');
      } catch {
        if (current === pid) return undefined; // no children file (kernel without it): scan instead
        continue;
      }
      for (const entry of text.split(' ')) {
        const child = Number(entry);
        if (entry !== '' && Number.isInteger(child) && !found.includes(child)) {
          found.push(child);
          queue.push(child);
        }
      }
    }
  }
  return found;
}

export async function descendantsOf(pid: number): Promise<number[]> {
  const walked = await childrenWalk(pid).catch(() => undefined);
  if (walked) return walked;
  try {
    const parents = await parentMap();
    const found: number[] = [];
    const queue = [pid];
    while (queue.length > 0) {
      const current = queue.shift() as number;
      for (const [child, parent] of parents) {
        if (parent === current && !found.includes(child)) {
          found.push(child);
          queue.push(child);
        }
      }
    }
    return found;
  } catch {
    return [];
  }
}

/** Whether a process is still running (a zombie awaiting its reaper counts as gone). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc (macOS): kill(0) is the best answer there is
  }
}

/** SIGTERM to each pid, then SIGKILL to those still alive after `graceMs`. */
export async function terminate(pids: number[], graceMs = 1000): Promise<void> {
  const signal = (pid: number, name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch {
      // already gone
    }
  };
  const alive = pids.filter(isAlive);
  for (const pid of alive) signal(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (alive.some(isAlive) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 25));
  const stubborn = alive.filter(isAlive);
  for (const pid of stubborn) signal(pid, 'SIGKILL');
  const killDeadline = Date.now() + 1000;
  while (stubborn.some(isAlive) && Date.now() < killDeadline)
    await new Promise((resolve) => setTimeout(resolve, 10));
}
