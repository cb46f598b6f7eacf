import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pnpmVersion, type RepositoryCopy, repoRoot, repositoryCopy } from './repository-copy.js';

// README promises that SIGINT/SIGTERM stop everything. A container, a process manager or a script signals
// the top process of the README's command (`npx --yes pnpm@… start`), which never passes the signal down
// to the app: each case below left the bot and its MCP servers running before scripts/lib/launcher-watch.mjs.
// The commands run in a copy of the repository: pnpm dev's watchers, stopped in their first pass, would
// leave half-written dist files where the other test files run them.

interface Fakes {
  apiUrl: string;
  close(): Promise<void>;
}
let slack: Fakes;
let copy: RepositoryCopy | undefined;

beforeAll(async () => {
  copy = repositoryCopy('stop-test-');
  // The test kit is built before the repository's checks run; imported by path, it needs no dependency here.
  const testKit = (await import(join(repoRoot, 'packages', 'test-kit', 'dist', 'index.js'))) as {
    startFakeSlack(): Promise<Fakes>;
  };
  slack = await testKit.startFakeSlack();
}, 300_000);
afterAll(async () => {
  await slack?.close();
  copy?.remove();
});

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
type Mode = 'bot' | 'chat' | 'dev' | 'demo';

function environment(dataDir: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DATA_DIR: dataDir,
    OPENAI_API_KEY: 'sk-stop-test-key-0123',
    OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
    LOG_FORMAT: 'json',
  };
}

function startReadmeCommand(mode: Mode, dataDir: string, terminal: boolean) {
  const script = { bot: 'start', chat: terminal ? 'start' : 'chat', dev: 'dev', demo: 'demo' }[mode];
  const args = ['--yes', `pnpm@${pnpmVersion}`, script];
  const bot =
    mode === 'bot'
      ? {
          SLACK_BOT_TOKEN: 'xoxb-stop-test-token',
          SLACK_APP_TOKEN: 'xapp-stop-test-token',
          SLACK_API_URL: slack.apiUrl,
          PORT: '0',
        }
      : {};
  // In a terminal (a pseudo-terminal of `script`) where a shell with job control runs the command, as
  // a person does; what is written goes to a file the test reads. When npx ends, the shell takes the
  // terminal back and whatever npx left behind has lost it (EIO).
  const log = terminal ? join(dataDir, 'terminal.log') : undefined;
  const child = log
    ? spawn('script', ['-qec', 'bash --norc --noprofile -i', '/dev/null'], {
        cwd: copy?.root,
        env: { ...environment(dataDir), SHELL: '/bin/bash', PS1: '$ ' },
        stdio: ['pipe', 'ignore', 'ignore'],
      })
    : spawn('npx', args, {
        cwd: copy?.root,
        env: { ...environment(dataDir), ...bot },
        // stdin held open, as a script or a supervisor does.
        stdio: ['pipe', 'pipe', 'pipe'],
      });
  if (log) child.stdin?.write(`npx ${args.join(' ')} >${log} 2>&1; echo "exit code $?" >>${log}\n`);
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const read = () => {
    if (!log) return output;
    try {
      return readFileSync(log, 'utf8');
    } catch {
      return '';
    }
  };
  return { child, exited, output: read };
}

const commandOf = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
};

/** The demo's scratch folder, read from its bot's environment. */
function demoFolder(pids: number[]): string | undefined {
  for (const pid of pids) {
    if (!commandOf(pid).includes('apps/slack-bot/dist/main.js')) continue;
    const variable = readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .find((entry) => entry.startsWith('MCP_SERVERS_CONFIG='));
    if (variable) return dirname(variable.slice('MCP_SERVERS_CONFIG='.length));
  }
  return undefined;
}

describe("a signal to the README's command", () => {
  // [title, mode, whom the signal is sent to, what is awaited before it, whether in a terminal]
  const cases: Array<[string, Mode, 'npx' | 'pnpm' | 'Ctrl-C', RegExp, boolean?]> = [
    ['SIGTERM to npx, the Slack bot in Socket Mode', 'bot', 'npx', /Slack app started/],
    ['SIGTERM to the pnpm npx started, the Slack bot', 'bot', 'pnpm', /Slack app started/],
    ['SIGTERM to npx, the terminal chat with stdin held open', 'chat', 'npx', /ai-assistant chat —/],
    [
      '#48 SIGTERM to npx, the terminal chat in a terminal, quietly',
      'chat',
      'npx',
      /ai-assistant chat —/,
      true,
    ],
    [
      '#48 SIGTERM to npx, pnpm dev in a terminal while its watchers make their first pass',
      'dev',
      'npx',
      /\[dev\] built \d+ packages/,
      true,
    ],
    [
      '#48 Ctrl-C in the terminal, pnpm dev while its watchers make their first pass: exit code 0',
      'dev',
      'Ctrl-C',
      /\[dev\] built \d+ packages/,
      true,
    ],
    [
      '#48 SIGTERM to npx, pnpm demo in a terminal at its prompt, its folder removed',
      'demo',
      'npx',
      /\/exit\n[^\n]*> /,
      true,
    ],
  ];
  for (const [title, mode, target, ready, terminal = false] of cases)
    it(`${title}: the app shuts down and no process is left`, async () => {
      const { embeddedStoreFolder } = (await import(
        join(repoRoot, 'packages/test-kit/dist/index.js')
      )) as typeof import('../packages/test-kit/src/index.js');
      const dataDir = embeddedStoreFolder('stop-test-');
      const run = startReadmeCommand(mode, dataDir, terminal);
      const top = run.child.pid as number;
      let tree: number[] = [];
      try {
        // Not ready: what the command printed says why (its last lines).
        expect(await until(() => ready.test(run.output()), 240_000), run.output().slice(-3000)).toBe(true);
        // The shipped weather server runs below the app (dev: the tsc watchers run, the app not yet).
        const below = mode === 'dev' ? '/tsc ' : 'mcp_servers/';
        expect(await until(() => descendantsOf(top).some((pid) => commandOf(pid).includes(below)))).toBe(
          true,
        );
        // In a terminal, the shell above npx stays.
        const npx = terminal
          ? descendantsOf(top).find((pid) => /(^|\/)npx |npm exec/.test(commandOf(pid)))
          : top;
        tree = [...(terminal ? [npx as number] : []), ...descendantsOf(npx as number)];
        const folder = mode === 'demo' ? demoFolder(tree) : undefined;
        if (mode === 'demo') expect(folder).toMatch(/ai-assistant-demo-/);
        const pnpm = tree.find((pid) => commandOf(pid).includes('.bin/pnpm'));
        // Ctrl-C typed in the terminal: SIGINT to every process of npx's job, unless one reads it as a key.
        if (target === 'Ctrl-C') run.child.stdin?.write('\x03');
        else process.kill((target === 'npx' ? npx : pnpm) as number, 'SIGTERM');
        if (!terminal) await run.exited;
        // Every process that was below npx ends: pnpm, the scripts, the app, its servers, the watchers.
        const left = () => tree.filter(alive).map((pid) => `${pid} ${commandOf(pid)}`);
        await until(() => left().length === 0);
        expect(left()).toEqual([]);
        if (mode === 'bot') expect(run.output()).toContain('shutting down');
        if (mode === 'dev') expect(run.output()).not.toContain('ai-assistant chat —');
        if (folder) expect(existsSync(folder)).toBe(false);
        // The terminal is gone for them: no stack trace, and pnpm saw the app exit 0.
        if (terminal) expect(run.output()).not.toMatch(/EIO|ELIFECYCLE|Error/);
        if (target === 'Ctrl-C') expect(await until(() => run.output().includes('exit code 0'))).toBe(true);
      } finally {
        // Whatever is left of the tree (all of it when the app never got ready) goes before its folder:
        // a store still open would write into the folder being removed.
        const left = [...new Set([...tree, ...descendantsOf(top)])].filter(alive);
        for (const pid of left) process.kill(pid, 'SIGKILL');
        if (run.child.exitCode === null) run.child.kill('SIGKILL');
        await until(() => !left.some(alive));
        rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
      }
    }, 300_000);
});
