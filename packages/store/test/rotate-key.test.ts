import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { embeddedStoreFolder } from '@ai-assistant/test-kit';
import { afterEach, expect, it } from 'vitest';
import { keyFileName, openStore } from '../src/index.js';

const run = promisify(execFile);
const script = join(import.meta.dirname, '..', 'dist', 'rotate-key.js');
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
});

it('rotate-key (embedded key file): a new key, everything re-encrypted, the old key gone', async () => {
  const dataDir = embeddedStoreFolder('rotate-');
  folders.push(dataDir);
  const store = await openStore({ dataDir, env: {} });
  await store.credentials.put('T1', 'U_ALICE', 'github', 'ghp_alice');
  await store.credentials.put('T1', 'U_BOB', 'github', 'ghp_bob');
  await store.close();
  const keyFile = join(dataDir, keyFileName);
  const oldKey = readFileSync(keyFile, 'utf8').trim();

  const { stdout } = await run(process.execPath, [script], {
    env: { PATH: process.env.PATH, DATA_DIR: dataDir },
  });
  expect(stdout).toContain('re-encrypted 2 credential(s) under a new key');
  const newKey = readFileSync(keyFile, 'utf8').trim();
  expect(newKey).not.toBe(oldKey);
  expect(newKey.split('\n')).toHaveLength(1);
  expect(statSync(keyFile).mode & 0o777).toBe(0o600);

  const after = await openStore({ dataDir, env: {} });
  expect((await after.credentials.of('T1', 'U_ALICE')).secrets).toEqual({ github: 'ghp_alice' });
  expect((await after.credentials.of('T1', 'U_BOB')).secrets).toEqual({ github: 'ghp_bob' });
  await after.close();
});

it('rotate-key with DATABASE_URL and no key refuses, naming the variable', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rotate-'));
  folders.push(dataDir);
  const failed = await run(process.execPath, [script], {
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, DATABASE_URL: 'postgres://127.0.0.1:1/none' },
  }).catch((error: { code: number; stderr: string }) => error);
  expect('code' in failed && failed.code).toBe(1);
  expect((failed as { stderr: string }).stderr).toMatch(/rotate-key: ASSISTANT_ENCRYPTION_KEY is not set/);
});
