import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Two kinds of tests. Beside the code (`src/**/*.test.ts`): fast ones, in one process, on pure functions
// and in-memory parts; `pnpm test:fast` runs them in seconds. In `test/`: the ones that need real parts
// (child processes, loopback servers, a database). This check keeps the first kind fast.

const repoRoot = resolve(import.meta.dirname, '..');

/** What a fast test may not use, and why. */
const slowParts: Array<[RegExp, string]> = [
  [/from 'node:(child_process|net|http|https|http2|dgram|worker_threads|cluster)'/, 'a process or a socket'],
  // Types from the store cost nothing at run time.
  [/import\s+(?!type\b)[^;]*?from '@ai-assistant\/store(\/[a-z]+)?'/, 'the database'],
  [/from '@ai-assistant\/mcp-server-[a-z-]+\/testing'/, 'a fake server'],
  [/\b(spawn|execFile|execFileSync|spawnSync|fork)\(/, 'a child process'],
  [
    /\b(start[A-Z]\w*|embeddedStoreFolder|seedEmbeddedStore|openStore|freePort|listenOnLoopback)\(/,
    'a server, a port or a store',
  ],
  [/\bfetch\(/, 'the network'],
];

function testsBesideCode(folder: string): string[] {
  const found: string[] = [];
  const walk = (path: string, inSource: boolean) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
      const child = join(path, entry.name);
      if (entry.isDirectory()) walk(child, inSource || entry.name === 'src');
      else if (inSource && entry.name.endsWith('.test.ts')) found.push(child);
    }
  };
  walk(folder, false);
  return found;
}

/** `file: what it uses` for every test beside the code that reaches for a slow part. */
function slowTestsBesideCode(root: string): string[] {
  return ['packages', 'apps', 'mcp_servers'].flatMap((group) => {
    const folder = join(root, group);
    if (!existsSync(folder)) return [];
    return testsBesideCode(folder).flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return slowParts
        .filter(([pattern]) => pattern.test(text))
        .map(([, what]) => `${relative(root, file)}: ${what} (move it to test/)`);
    });
  });
}

describe('tests beside the code are fast', () => {
  it('no test under src/ starts a process, opens a socket or a store', () => {
    expect(slowTestsBesideCode(repoRoot)).toEqual([]);
  });

  it('finds one that does, and names what it uses', () => {
    const root = mkdtempSync(join(tmpdir(), 'fast-tests-'));
    try {
      mkdirSync(join(root, 'packages', 'a', 'src', 'deep'), { recursive: true });
      mkdirSync(join(root, 'packages', 'a', 'test'), { recursive: true });
      writeFileSync(
        join(root, 'packages', 'a', 'src', 'pure.test.ts'),
        "import type { Store } from '@ai-assistant/store';\nimport { it } from 'vitest';\n",
      );
      writeFileSync(
        join(root, 'packages', 'a', 'src', 'deep', 'slow.test.ts'),
        "import { spawn } from 'node:child_process';\nconst store = await openStore({});\n",
      );
      writeFileSync(join(root, 'packages', 'a', 'test', 'real.test.ts'), "spawn('node');\n");
      expect(slowTestsBesideCode(root)).toEqual([
        'packages/a/src/deep/slow.test.ts: a process or a socket (move it to test/)',
        'packages/a/src/deep/slow.test.ts: a server, a port or a store (move it to test/)',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
