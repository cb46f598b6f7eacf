import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { findSeparationViolations } from './separation.js';

const repoRoot = resolve(import.meta.dirname, '..');
const pnpmVersion = (
  JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { packageManager: string }
).packageManager.split('@')[1];
const pnpm = (cwd: string, ...args: string[]) =>
  execFileSync('npx', ['--yes', `pnpm@${pnpmVersion}`, ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, CI: 'true' },
  });

/** The commands of CONTRIBUTING's "Adding an MCP server" block, in order. */
function contributingSteps(): string[] {
  const text = readFileSync(join(repoRoot, 'CONTRIBUTING.md'), 'utf8');
  const section = text.slice(text.indexOf('## Adding an MCP server'));
  const block = section.slice(
    section.indexOf('```sh') + 5,
    section.indexOf('```', section.indexOf('```sh') + 5),
  );
  const lines = block
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  expect(lines.length).toBeGreaterThanOrEqual(3);
  return lines;
}

describe('pnpm new-server', () => {
  const copy = mkdtempSync(join(tmpdir(), 'new-server-'));
  afterAll(() => rmSync(copy, { recursive: true, force: true, maxRetries: 5 }));

  it('scaffolds a server that builds, passes its own test, lint and the separation rule, listed disabled', () => {
    // A copy of the repository's tracked files, so the real tree is never touched.
    const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: repoRoot, encoding: 'utf8' })
      .split('\0')
      .filter(Boolean);
    for (const file of tracked) {
      mkdirSync(dirname(join(copy, file)), { recursive: true });
      cpSync(join(repoRoot, file), join(copy, file));
    }
    pnpm(copy, 'install', '--offline', '--frozen-lockfile');
    // CONTRIBUTING's "Adding an MCP server" lines, as a person types them (outside CI, where a plain
    // install may update the lockfile). Offline, and with no registry metadata at hand, as after a frozen
    // install on a fresh machine: new-server gives the package the lockfile entries the workspace already
    // has, so pnpm has nothing to resolve (before: ERR_PNPM_NO_OFFLINE_META for @types/node).
    const { CI: _ci, ...environment } = process.env;
    const personal = {
      ...environment,
      npm_config_offline: 'true',
      npm_config_cache_dir: join(copy, '.no-metadata'),
    };
    const outputs = contributingSteps().map((line) =>
      execFileSync('bash', ['-c', line], {
        cwd: copy,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: personal,
      }),
    );
    expect(outputs[0]).toContain('Created mcp_servers/team-wiki (@ai-assistant/mcp-server-team-wiki)');
    expect(stripVTControlCharacters(outputs.at(-1) ?? '')).toMatch(/Tests\s+2 passed/);
    pnpm(copy, 'lint'); // throws on any lint or format problem
    expect(findSeparationViolations(join(copy, 'mcp_servers'), copy)).toEqual([]);
    const config = JSON.parse(readFileSync(join(copy, 'config', 'mcp_servers.json'), 'utf8')) as {
      mcpServers: Record<string, { disabled?: boolean; args?: string[] }>;
    };
    expect(config.mcpServers['team-wiki']).toEqual({
      command: 'node',
      args: ['../mcp_servers/team-wiki/dist/index.js'],
      disabled: true,
    });
    // Only the new entry is added: every other entry keeps its text (a JSON round trip rewrote them).
    const written = readFileSync(join(copy, 'config', 'mcp_servers.json'), 'utf8');
    expect(written.replace(/,\n {4}"team-wiki": \{[^}]*\}/, '')).toBe(
      readFileSync(join(repoRoot, 'config', 'mcp_servers.json'), 'utf8'),
    );
    // An edit to the new server is built by pnpm chat / pnpm start (every workspace, not only the
    // shipped servers): before, the old description stayed.
    const source = join(copy, 'mcp_servers', 'team-wiki', 'src', 'server.ts');
    writeFileSync(
      source,
      readFileSync(source, 'utf8').replace('Greets a person by name.', 'Greets a teammate warmly.'),
    );
    const started = execFileSync('bash', ['-c', `npx --yes pnpm@${pnpmVersion} chat --help`], {
      cwd: copy,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: personal,
    });
    expect(started).toContain('Usage: pnpm chat');
    expect(readFileSync(join(copy, 'mcp_servers', 'team-wiki', 'dist', 'server.js'), 'utf8')).toContain(
      'Greets a teammate warmly.',
    );
    // A bad name is refused with the rule.
    expect(() => pnpm(copy, 'new-server', 'Bad_Name')).toThrow(
      /lower-case letters, digits and single hyphens/,
    );
  }, 300_000);
});
