import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pnpmVersion, type RepositoryCopy, repositoryCopy } from './repository-copy.js';

// pnpm dev rebuilds what changes, in a copy of the repository: its watchers rewrite every workspace's
// dist, which the other test files are running meanwhile.
let copy: RepositoryCopy | undefined;
beforeAll(() => {
  copy = repositoryCopy('dev-test-');
}, 300_000);
afterAll(() => copy?.remove());

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline)
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 100));
  return check();
}

/** Weather servers started from the copy's config folder (read from /proc: no ps needed). */
function weatherServersRunning(): number {
  let count = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const runsWeather = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
        .split('\0')
        .some((arg) => arg.endsWith('mcp_servers/weather/dist/index.js'));
      if (runsWeather && readlinkSync(`/proc/${pid}/cwd`).startsWith(copy?.root ?? '/nowhere')) count++;
    } catch {
      // the process ended meanwhile
    }
  }
  return count;
}

describe('pnpm dev', () => {
  it('runs the chat in the foreground with stdin, restarts it once when an MCP server’s source changes, and exits 0 with it', async () => {
    const root = copy?.root as string;
    const source = join(root, 'mcp_servers', 'weather', 'src', 'version.ts');
    const original = readFileSync(source, 'utf8');
    // As README says: through npx, so no pnpm needs to be installed.
    const child = spawn('npx', ['--yes', `pnpm@${pnpmVersion}`, 'dev', '--chat'], {
      cwd: root,
      // A variable set in the shell reaches the app (no key here: the chat still opens).
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        MCP_ENABLED: 'true',
        DEV_SETTLE_MS: '800',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    const banners = () => stderr.split('ai-assistant chat —').length - 1;
    const exited = new Promise<number | null>((resolvePromise) => child.once('exit', resolvePromise));
    try {
      // The first build of every workspace's watcher: minutes on a busy 2-core machine.
      expect(await until(() => banners() === 1, 420_000)).toBe(true);
      // #48 the watchers' first pass says how far it got, every one of them ready before the app starts.
      const counts = [...stderr.matchAll(/\[dev\] watching: (\d+)\/(\d+) ready/g)];
      expect(counts.length).toBeGreaterThan(1);
      expect(counts.at(-1)?.[1]).toBe(counts.at(-1)?.[2]);
      expect(stderr.indexOf('[dev] watching:')).toBeLessThan(stderr.indexOf('ai-assistant chat —'));
      expect(await until(() => weatherServersRunning() === 1, 10_000)).toBe(true); // the check sees it
      // Typed input reaches the chat.
      child.stdin.write('/tools\n');
      expect(await until(() => stdout.includes('mcp__weather__get_weather'), 20_000)).toBe(true);
      // A change to the weather server's source: rebuilt by its watcher, the chat restarted once.
      writeFileSync(source, `${original}// touched by the pnpm dev test\n`);
      expect(await until(() => banners() === 2, 60_000)).toBe(true);
      await new Promise((resolvePromise) => setTimeout(resolvePromise, 2000));
      expect(banners()).toBe(2);
      expect(stderr.match(/\[dev\] rebuilt: restarting the app/g)).toHaveLength(1);
      // A type error: named with its package, nothing rebuilt, the running chat kept (no restart).
      writeFileSync(source, `${original}export const broken: number = 'not a number';\n`);
      expect(
        await until(
          () =>
            /\[dev\] @ai-assistant\/mcp-server-weather: src\/version\.ts\(\d+,\d+\): error TS2322/.test(
              stderr,
            ) &&
            /@ai-assistant\/mcp-server-weather: 1 type error; nothing rebuilt, the app keeps running the last good build/.test(
              stderr,
            ),
          60_000,
        ),
      ).toBe(true);
      await new Promise((resolvePromise) => setTimeout(resolvePromise, 2000));
      expect(banners()).toBe(2);
      // Fixed: rebuilt, and the chat restarts once more.
      writeFileSync(source, original);
      expect(await until(() => banners() === 3, 60_000)).toBe(true);
      expect(stderr).toContain('[dev] @ai-assistant/mcp-server-weather: type errors fixed');
      child.stdin.write('/exit\n');
      expect(
        await Promise.race([
          exited,
          new Promise((resolvePromise) => setTimeout(() => resolvePromise('timeout'), 30_000)),
        ]),
      ).toBe(0);
    } finally {
      writeFileSync(source, original);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 720_000);
});
