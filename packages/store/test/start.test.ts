import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@ai-assistant/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { newKey, openStoreFromEnvironment, StoreStartError } from '../src/index.js';

it('an unreachable DATABASE_URL is a start-up error that says so, without the password', async () => {
  const port = await freePort(); // nothing listens there
  const failure = await openStoreFromEnvironment({
    DATABASE_URL: `postgres://app:hunter2-secret-pw@127.0.0.1:${port}/assistant`,
    ASSISTANT_ENCRYPTION_KEY: newKey(),
  }).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(StoreStartError);
  expect((failure as Error).message).toMatch(
    /^store: cannot reach the database to migrate it: .*ECONNREFUSED/,
  );
  expect((failure as Error).message).not.toContain('hunter2-secret-pw');
});

describe('the embedded store is one process’s', () => {
  const folders: string[] = [];
  afterEach(() => {
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
  });
  const dataDir = () => {
    const folder = mkdtempSync(join(tmpdir(), 'store-lock-'));
    folders.push(folder);
    return folder;
  };

  it('a second opener of the same DATA_DIR (another process) is refused with the lock, its holder and what to do', async () => {
    const folder = dataDir();
    // The bot: another process holding the store open.
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { openStoreFromEnvironment } from ${JSON.stringify(join(import.meta.dirname, '..', 'dist', 'index.js'))};
         await openStoreFromEnvironment({ DATA_DIR: ${JSON.stringify(folder)} });
         process.stdout.write('open\\n');
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolvePromise, reject) => {
        holder.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('open') && resolvePromise());
        holder.once('exit', (code) => reject(new Error(`the holder exited with ${code}`)));
      });
      // Before: the second opener succeeded and its writes were lost after a restart.
      const failure = await openStoreFromEnvironment({ DATA_DIR: folder }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StoreStartError);
      expect((failure as Error).message).toContain(
        `is in use by process ${holder.pid} (lock file ${join(folder, 'store.lock')})`,
      );
      expect((failure as Error).message).toMatch(/DATABASE_URL/);
    } finally {
      holder.kill('SIGKILL');
      await new Promise((resolvePromise) => holder.once('exit', resolvePromise));
    }
    // Its holder is gone (killed, lock file left behind): the next opener takes the store over.
    expect(existsSync(join(folder, 'store.lock'))).toBe(true);
    const store = await openStoreFromEnvironment({ DATA_DIR: folder });
    await store.credentials.put('local', 'me', 'tickets', 'secret-value-1234');
    await store.close();
    expect(existsSync(join(folder, 'store.lock'))).toBe(false);
  });

  it('a lock left by a past life is taken over: this pid in a restarted container, another host gone quiet (review of 27.8)', async () => {
    const folder = dataDir();
    // PID 1 again after a container restart: the lock names this very pid, but this process holds none.
    writeFileSync(join(folder, 'store.lock'), `${process.pid}\n${hostname()}\n`);
    const first = await openStoreFromEnvironment({ DATA_DIR: folder });
    await first.close();
    // A lock of another host (a container replaced on the same volume), untouched for over a minute.
    writeFileSync(join(folder, 'store.lock'), '1\nold-container-id\n');
    const quiet = new Date(Date.now() - 120_000);
    utimesSync(join(folder, 'store.lock'), quiet, quiet);
    const second = await openStoreFromEnvironment({ DATA_DIR: folder });
    await second.close();
    // The same lock touched recently is still someone's.
    writeFileSync(join(folder, 'store.lock'), '1\nother-container-id\n');
    await expect(openStoreFromEnvironment({ DATA_DIR: folder })).rejects.toThrow(
      /in use by process 1 on other-container-id/,
    );
  });

  it('in one process: a second open waits for the first to close', async () => {
    const folder = dataDir();
    const first = await openStoreFromEnvironment({ DATA_DIR: folder });
    await expect(openStoreFromEnvironment({ DATA_DIR: folder })).rejects.toThrow(
      /in use by this process already/,
    );
    await first.close();
    const second = await openStoreFromEnvironment({ DATA_DIR: folder });
    await second.close();
  });
});
