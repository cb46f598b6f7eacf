import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** The lock file of an embedded store, inside DATA_DIR. */
export const lockFileName = 'store.lock';

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
      const release = () => {
        if (released) return;
        released = true;
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
    const stale = host === hostname() && Number.isInteger(pid) && pid > 0 && !alive(pid);
    if (!stale) {
      const holder =
        pid === process.pid
          ? 'this process already'
          : `process ${pidText}${host === hostname() ? '' : ` on ${host}`}`;
      throw new Error(
        `the embedded store in ${dataDir} is in use by ${holder} (lock file ${path}). Stop the other bot or chat using it, give each its own DATA_DIR, or share one store through PostgreSQL (DATABASE_URL). If no such process runs, delete the lock file.`,
      );
    }
    unlinkSync(path); // its holder is gone: take it over
  }
  throw new Error(`could not take the lock file ${path}; delete it if no bot or chat is running`);
}
