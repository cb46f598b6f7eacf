import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

describe('pnpm new-server', () => {
  const copy = mkdtempSync(join(tmpdir(), 'new-server-'));
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('scaffolds a server that builds, passes its own test, lint and the separation rule, listed disabled', () => {
    // A copy of the repository's tracked files, so the real tree is never touched.
    const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: repoRoot, encoding: 'utf8' })
      .split('\0')
      .filter(Boolean);
    for (const file of tracked) {
      mkdirSync(dirname(join(copy, file)), { recursive: true });
      cpSync(join(repoRoot, file), join(copy, file));
    }
    pnpm(copy, 'install', '--prefer-offline', '--frozen-lockfile');
    const created = pnpm(copy, 'new-server', 'team-wiki');
    expect(created).toContain('Created mcp_servers/team-wiki (@ai-assistant/mcp-server-team-wiki)');
    pnpm(copy, 'install', '--prefer-offline', '--no-frozen-lockfile');
    pnpm(copy, '--filter', '@ai-assistant/mcp-server-team-wiki', 'build');
    const tested = pnpm(copy, '--filter', '@ai-assistant/mcp-server-team-wiki', 'test');
    expect(stripVTControlCharacters(tested)).toMatch(/Tests\s+2 passed/);
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
    // A bad name is refused with the rule.
    expect(() => pnpm(copy, 'new-server', 'Bad_Name')).toThrow(
      /lower-case letters, digits and single hyphens/,
    );
  }, 300_000);
});
