import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where PGlite's `initdb` output for this PGlite version is kept between test files: one folder per
 * machine and version, made once. A new embedded store spends most of its first second in `initdb`
 * (about 3 s of WASM on a 2-core machine); a test store starts from a copy of it instead (0.1 s) and
 * then runs the store's own migrations as the bot does.
 */
function templateFolder(): string {
  const entry = fileURLToPath(import.meta.resolve('@electric-sql/pglite'));
  let folder = dirname(entry);
  while (!existsSync(join(folder, 'package.json'))) folder = dirname(folder);
  const { version } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version: string };
  return join(tmpdir(), `ai-assistant-pglite-initdb-${version}`);
}

let template: string | undefined;

/** The template's folder, made by PGlite's own `initdb` in a child process the first time on this machine. */
function pgliteTemplate(): string {
  if (template) return template;
  const folder = templateFolder();
  if (!existsSync(join(folder, 'PG_VERSION'))) {
    // Made beside its final place and renamed into it: a test file running at the same time sees either
    // no template or a whole one, never a half-written one.
    const scratch = mkdtempSync(`${folder}.partial-`);
    const script = `const { PGlite } = await import(${JSON.stringify(import.meta.resolve('@electric-sql/pglite'))});
await (await PGlite.create(${JSON.stringify(join(scratch, 'pglite'))})).close();`;
    const made = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 300_000,
    });
    if (made.status !== 0) {
      rmSync(scratch, { recursive: true, force: true });
      throw new Error(`PGlite's initdb failed (exit ${made.status}): ${made.stderr?.toString().trim()}`);
    }
    try {
      renameSync(join(scratch, 'pglite'), folder);
    } catch (error) {
      // Another file made it first: theirs is as good as ours.
      if (!existsSync(join(folder, 'PG_VERSION'))) throw error;
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  template = folder;
  return folder;
}

/**
 * Gives `dataDir` (a DATA_DIR) an embedded database fresh from `initdb`, so that the store opened on it
 * skips only that step: its migrations, key and lock are its own. Returns `dataDir`.
 */
export function seedEmbeddedStore(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true });
  cpSync(pgliteTemplate(), join(dataDir, 'pglite'), { recursive: true });
  return dataDir;
}

/** A new temporary DATA_DIR whose embedded database is fresh from `initdb` (see {@link seedEmbeddedStore}). */
export function embeddedStoreFolder(prefix = 'store-'): string {
  return seedEmbeddedStore(mkdtempSync(join(tmpdir(), prefix)));
}
