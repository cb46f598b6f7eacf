#!/usr/bin/env node
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { keyFileName, keyVariable, newKey, writeKeyFile } from './keyring.js';
import { defaultDataDir, openStore } from './open.js';

/**
 * Re-encrypts every stored credential and sealed record under the newest key.
 * - With ASSISTANT_ENCRYPTION_KEY: put the new key first (`new,old`), run this, then drop `old`.
 * - With the embedded key file: a new key is made, everything is re-encrypted, the old key is removed.
 */
export async function rotateKey(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const dataDir = env.DATA_DIR?.trim() || defaultDataDir(env.INIT_CWD ?? process.cwd());
  const databaseUrl = env.DATABASE_URL?.trim() || undefined;
  const options = { dataDir, env, ...(databaseUrl ? { databaseUrl } : {}) };
  if (env[keyVariable]?.trim()) {
    const store = await openStore(options);
    try {
      const count = await store.reencryptAll();
      return `re-encrypted ${count} credential(s) under the first key of ${keyVariable}; the other keys can now be removed`;
    } finally {
      await store.close();
    }
  }
  if (databaseUrl) throw new Error(`${keyVariable} is not set; with DATABASE_URL the keys come from it only`);
  const keyFile = join(dataDir, keyFileName);
  const old = (await readFile(keyFile, 'utf8')).split('\n').filter((line) => line.trim() !== '');
  const fresh = newKey();
  await writeKeyFile(keyFile, [fresh, ...old]);
  const store = await openStore(options);
  let count: number;
  try {
    count = await store.reencryptAll();
  } finally {
    await store.close();
  }
  await writeKeyFile(keyFile, [fresh]);
  return `re-encrypted ${count} credential(s) under a new key in ${keyFile}; the old key is gone`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  rotateKey().then(
    (message) => process.stdout.write(`${message}\n`),
    (error: unknown) => {
      process.stderr.write(`rotate-key: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
