import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '..');
export const pnpmVersion = (
  JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { packageManager: string }
).packageManager.split('@')[1] as string;

/** turbo's local cache: the repository's own, or in a git worktree the main worktree's, which turbo shares. */
function turboCache(): string | undefined {
  const common = execFileSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], {
    cwd: repoRoot,
    encoding: 'utf8',
  }).trim();
  return [join(repoRoot, '.turbo', 'cache'), join(dirname(common), '.turbo', 'cache')].find((folder) =>
    existsSync(folder),
  );
}

export interface RepositoryCopy {
  root: string;
  /** `npx --yes pnpm@<the repository's> …args` in the copy, as README spells it; its stdout. */
  pnpm(...args: string[]): string;
  remove(): void;
}

/**
 * A copy of the repository's tracked files in a temporary folder, installed offline from the same
 * lockfile, with turbo's cache of the builds the test command made (so the copy's first build replays
 * them). A test that edits sources, scaffolds packages or runs `pnpm dev`'s watchers does it here: in the
 * repository itself it would rewrite the `dist` files every other test file is running.
 */
export function repositoryCopy(prefix: string): RepositoryCopy {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: repoRoot, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean);
  for (const file of tracked) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    cpSync(join(repoRoot, file), join(root, file));
  }
  const cache = turboCache();
  if (cache) cpSync(cache, join(root, '.turbo', 'cache'), { recursive: true });
  const pnpm = (...args: string[]) =>
    execFileSync('npx', ['--yes', `pnpm@${pnpmVersion}`, ...args], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CI: 'true' },
    });
  pnpm('install', '--offline', '--frozen-lockfile');
  return { root, pnpm, remove: () => rmSync(root, { recursive: true, force: true, maxRetries: 5 }) };
}
