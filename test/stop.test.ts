import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// README promises that SIGINT/SIGTERM stop everything. A container, a process manager or a script signals
// the top process of the README's command (`npx --yes pnpm@… start`), which never passes the signal down
// to the app: each case below left the bot and its MCP servers running before scripts/lib/launcher-watch.mjs.
const repoRoot = resolve(import.meta.dirname, '..');
const pnpmVersion = (
  JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { packageManager: string }
).packageManager.split('@')[1];

interface Fakes {
  apiUrl: string;
  close(): Promise<void>;
}
let slack: Fakes;

beforeAll(async () => {
  // The test kit is built before the repository's checks run; imported by path, it needs no dependency here.
  const testKit = (await import(join(repoRoot, 'packages', 'test-kit', 'dist', 'index.js'))) as {
    startFakeSlack(): Promise<Fakes>;
  };
  slack = await testKit.startFakeSlack();
});
afterAll(() => slack?.close());

/** The processes below `pid`, read from /proc. */
function descendantsOf(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // ended meanwhile
    }
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift() as number;
    for (const [child, itsParent] of parents)
      if (itsParent === parent) {
        found.push(child);
        queue.push(child);
      }
  }
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Polls (bounded) until `check` holds: the test waits for the event, however busy the machine. */
async function until(check: () => boolean, ms = 60_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((done) => setTimeout(done, 100));
  return check();
}

function startReadmeCommand(mode: 'bot' | 'chat', dataDir: string) {
  const args = ['--yes', `pnpm@${pnpmVersion}`, mode === 'bot' ? 'start' : 'chat'];
  const bot =
    mode === 'bot'
      ? {
          SLACK_BOT_TOKEN: 'xoxb-stop-test-token',
          SLACK_APP_TOKEN: 'xapp-stop-test-token',
          SLACK_API_URL: slack.apiUrl,
          PORT: '0',
        }
      : {};
  const child = spawn('npx', args, {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATA_DIR: dataDir,
      OPENAI_API_KEY: 'sk-stop-test-key-0123',
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      LOG_FORMAT: 'json',
      ...bot,
    },
    // stdin held open, as a script or a supervisor does.
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, exited, output: () => output };
}

/** Each process that ran the app: `node scripts/start.mjs` and the MCP servers below it. */
function appProcesses(top: ChildProcess): number[] {
  return descendantsOf(top.pid as number).filter((pid) => {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      return command.includes('scripts/start.mjs') || command.includes('mcp_servers/');
    } catch {
      return false;
    }
  });
}

describe("a signal to the README's command", () => {
  const cases: Array<[string, 'bot' | 'chat', 'npx' | 'pnpm', string]> = [
    ['SIGTERM to npx, the Slack bot in Socket Mode', 'bot', 'npx', 'Slack app started'],
    ['SIGTERM to the pnpm npx started, the Slack bot', 'bot', 'pnpm', 'Slack app started'],
    ['SIGTERM to npx, the terminal chat with stdin held open', 'chat', 'npx', 'ai-assistant chat —'],
  ];
  for (const [title, mode, target, ready] of cases)
    it(`${title}: the app shuts down and no process is left`, async () => {
      const { embeddedStoreFolder } = (await import(
        join(repoRoot, 'packages/test-kit/dist/index.js')
      )) as typeof import('../packages/test-kit/src/index.js');
      const dataDir = embeddedStoreFolder('stop-test-');
      const run = startReadmeCommand(mode, dataDir);
      let app: number[] = [];
      try {
        expect(await until(() => run.output().includes(ready), 240_000)).toBe(true);
        // The shipped weather server runs below the app.
        expect(await until(() => appProcesses(run.child).length >= 2)).toBe(true);
        app = appProcesses(run.child);
        const pnpm = descendantsOf(run.child.pid as number).find((pid) =>
          readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('.bin/pnpm'),
        );
        process.kill(target === 'npx' ? (run.child.pid as number) : (pnpm as number), 'SIGTERM');
        await run.exited;
        expect(await until(() => !app.some(alive))).toBe(true);
        if (mode === 'bot') expect(run.output()).toContain('shutting down');
      } finally {
        // Whatever is left of the tree (all of it when the app never got ready) goes before its folder:
        // a store still open would write into the folder being removed.
        const left = [...new Set([...app, ...descendantsOf(run.child.pid as number)])].filter(alive);
        for (const pid of left) process.kill(pid, 'SIGKILL');
        if (run.child.exitCode === null) run.child.kill('SIGKILL');
        await until(() => !left.some(alive));
        rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
      }
    }, 300_000);
});
