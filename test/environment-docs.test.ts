import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Every environment variable the bot, the chat and the scripts read is documented three times, each with
// its true default: README's table, .env.example and `pnpm start --help` (which prints .env.example's).
const repoRoot = resolve(import.meta.dirname, '..');
const sources = [
  'apps/slack-bot/src',
  'apps/cli/src',
  'packages/assistant/src',
  'packages/host-core/src',
  'packages/llm-providers/src',
  'packages/store/src',
  'scripts',
];

/** Read by the code, but not a setting of ours: set by the system, pnpm or the tests. */
const notSettings = new Map([
  ['PATH', 'the system'],
  ['HOME', 'the system'],
  ['DISPLAY', 'the desktop session, to find an opener for links'],
  ['WAYLAND_DISPLAY', 'the desktop session, to find an opener for links'],
  ['XDG_CACHE_HOME', 'the system'],
  ['INIT_CWD', 'set by pnpm: the folder a command was started in'],
  ['NEW_SERVER_ROOT', "new-server's test runs it on a copy of the repository"],
]);

function files(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'dist' ? [] : files(path);
    return /\.(ts|mjs)$/.test(name) && !/\.test\.ts$/.test(name) ? [path] : [];
  });
}

const readers = [
  /\benv\??\.([A-Z][A-Z0-9_]+)\b/g,
  /\benv\[['"]([A-Z][A-Z0-9_]+)['"]\]/g,
  /\(\s*env,\s*['"]([A-Z][A-Z0-9_]+)['"]/g,
  /\bread\(['"]([A-Z][A-Z0-9_]+)['"]\)/g,
  /Variable = ['"]([A-Z][A-Z0-9_]+)['"]/g,
];
const code = sources
  .flatMap((folder) => files(join(repoRoot, folder)))
  .map((path) => readFileSync(path, 'utf8'));
const read = new Set(
  code.flatMap((text) =>
    readers.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1] as string)),
  ),
);
// The shipped config hands these to its servers (`${NAME}` or `${NAME:-default}`): settings a person
// sets as much as those the code reads, each with the config's default.
const shippedConfig = readFileSync(join(repoRoot, 'config', 'mcp_servers.json'), 'utf8');
const configDefaults = new Map(
  [...shippedConfig.matchAll(/\$\{([A-Z][A-Z0-9_]+)(?::-([^}]*))?\}/g)].map(
    (match) => [match[1] as string, match[2] ?? ''] as const,
  ),
);
const settings = [...new Set([...read, ...configDefaults.keys()])]
  .filter((name) => !notSettings.has(name))
  .sort();

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const example = readFileSync(join(repoRoot, '.env.example'), 'utf8');
/** .env.example's comment block above (and on) each variable's line. */
function exampleBlock(name: string): string | undefined {
  const lines = example.split('\n');
  const at = lines.findIndex((line) => new RegExp(`^#?\\s?${name}=`).test(line));
  if (at < 0) return undefined;
  let start = at;
  while (
    start > 0 &&
    lines[start - 1]?.startsWith('#') &&
    !/^#\s?[A-Z][A-Z0-9_]+=/.test(lines[start - 1] ?? '')
  )
    start--;
  return lines.slice(start, at + 1).join('\n');
}
const numberIn = (text: string) => Number(text.replace(/[\s_,]/g, ''));

describe('environment variables', () => {
  it('the scan finds the variables (it would catch a new one)', () => {
    expect(settings).toEqual(
      expect.arrayContaining(['SLACK_BOT_TOKEN', 'CONVERSATION_RETENTION_DAYS', 'PORT']),
    );
  });

  it("#48 the variables the shipped config reads are documented too, with the config's default", () => {
    expect([...configDefaults.keys()]).toEqual(expect.arrayContaining(['KNOWLEDGE_DIR', 'JMA_BASE_URL']));
    const help = execFileSync(process.execPath, [join(repoRoot, 'scripts', 'start.mjs'), '--help'], {
      encoding: 'utf8',
    });
    const missing = [...configDefaults.keys()].filter(
      (name) => !exampleBlock(name) || !help.includes(name) || !readme.includes(`\`${name}\``),
    );
    expect(missing).toEqual([]);
    const wrong = [...configDefaults]
      .filter(([name, value]) => value !== '' && !exampleBlock(name)?.includes(`default ${value}`))
      .map(([name, value]) => `${name}: the config's default is ${value}`);
    expect(wrong).toEqual([]);
  });

  it("every variable the code reads is in README's table, .env.example and --help", () => {
    const help = execFileSync(process.execPath, [join(repoRoot, 'scripts', 'start.mjs'), '--help'], {
      encoding: 'utf8',
    });
    const readmeTable = readme.slice(readme.indexOf('## Environment variables'));
    expect(settings.filter((name) => !readmeTable.includes(`\`${name}\``))).toEqual([]);
    expect(settings.filter((name) => !exampleBlock(name))).toEqual([]);
    expect(settings.filter((name) => !help.includes(name))).toEqual([]);
  });

  it('.env.example states the default the code uses, and sets nothing to another value', () => {
    const wrong: string[] = [];
    for (const text of code) {
      for (const match of text.matchAll(/\b(?:whole|wholeNumber)\(env, '([A-Z_0-9]+)', ([\d_]+)/g)) {
        const [, name, value] = match as unknown as [string, string, string];
        const stated = /default ([\d][\d\s_,]*)/.exec(exampleBlock(name) ?? '');
        if (!stated || numberIn(stated[1] as string) !== numberIn(value))
          wrong.push(`${name}: code ${value}, .env.example ${stated?.[1] ?? 'says none'}`);
      }
      for (const match of text.matchAll(/\bflag\(env\.([A-Z_0-9]+), (true|false)\)/g)) {
        const [, name, value] = match as unknown as [string, string, string];
        const stated = /default (true|false)/.exec(exampleBlock(name) ?? '');
        if (stated?.[1] !== value)
          wrong.push(`${name}: code ${value}, .env.example ${stated?.[1] ?? 'says none'}`);
      }
    }
    for (const line of example.split('\n')) {
      const assignment = /^([A-Z][A-Z0-9_]+)=(.+)$/.exec(line);
      if (!assignment) continue;
      const [, name, value] = assignment as unknown as [string, string, string];
      const stated = /default ([^\s,;)]+)/.exec(exampleBlock(name) ?? '');
      if (stated?.[1] !== value && !(name === 'MCP_ENABLED' && value === 'true'))
        wrong.push(`${name}=${value} in .env.example, default ${stated?.[1] ?? 'not stated'}`);
    }
    expect(wrong).toEqual([]);
  });
});
