import { closeSync, openSync, readFileSync, statSync, unlinkSync, utimesSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** The lock file of an embedded store, inside DATA_DIR. */
export const lockFileName = 'store.lock';

/** The holder touches its lock this often; a lock untouched for `staleAfterMs` has no live holder. */
const heartbeatMs = 10_000;
const staleAfterMs = 60_000;
/** Locks this process holds now: a lock naming this pid that is not here is a past life's (PID 1 in a container). */
const held = new Set<string>();

/** Whether a process of this machine is alive (EPERM: alive, someone else's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes DATA_DIR for this process alone: PGlite's files are one process's, and a second opener (the
 * terminal chat beside the bot) would silently lose writes. A lock left by a process that is gone is
 * taken over. Returns the release; throws a message naming the lock, its holder and what to do.
 */
export function lockDataDir(dataDir: string): () => void {
  const path = join(dataDir, lockFileName);
  const me = `${process.pid}\n${hostname()}\n`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, me);
      closeSync(fd);
      let released = false;
      held.add(path);
      // The heartbeat: a holder that died (SIGKILL, OOM, another container) stops touching it.
      const heartbeat = setInterval(() => {
        try {
          const now = new Date();
          utimesSync(path, now, now);
        } catch {
          // gone: released, or removed by hand
        }
      }, heartbeatMs);
      heartbeat.unref();
      const release = () => {
        if (released) return;
        released = true;
        clearInterval(heartbeat);
        held.delete(path);
        process.removeListener('exit', release);
        try {
          if (readFileSync(path, 'utf8') === me) unlinkSync(path);
        } catch {
          // already gone
        }
      };
      process.once('exit', release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const [pidText, host] = readFileSync(path, 'utf8').split('\n');
    const pid = Number(pidText);
    const here = host === hostname() && Number.isInteger(pid) && pid > 0;
    const untouched = Date.now() - statSync(path).mtimeMs > staleAfterMs;
    const stale = untouched || (here && (pid === process.pid ? !held.has(path) : !alive(pid)));
    if (!stale) {
      const holder =
        pid === process.pid && held.has(path)
          ? 'this process already'
          : `process ${pidText}${host === hostname() ? '' : ` on ${host}`}`;
      throw new Error(
        `the embedded store in ${dataDir} is in use by ${holder} (lock file ${path}). Stop the other bot or chat using it, give each its own DATA_DIR, or share one store through PostgreSQL (DATABASE_URL). A lock whose holder is gone is taken over once it is a minute old.`,
      );
    }
    unlinkSync(path); // its holder is gone: take it over
  }
  throw new Error(`could not take the lock file ${path}; delete it if no bot or chat is running`);
}
