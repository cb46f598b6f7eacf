import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { pnpmVersion, type RepositoryCopy, repoRoot, repositoryCopy } from './repository-copy.js';
import { findSeparationViolations } from './separation.js';

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
  let copy: RepositoryCopy | undefined;
  afterAll(() => copy?.remove());

  it('scaffolds a server that builds, passes its own test, lint and the separation rule, listed disabled', () => {
    // A copy of the repository, so the real tree is never touched.
    copy = repositoryCopy('new-server-');
    const { root, pnpm } = copy;
    // CONTRIBUTING's "Adding an MCP server" lines, as a person types them (outside CI, where a plain
    // install may update the lockfile). Offline, and with no registry metadata at hand, as after a frozen
    // install on a fresh machine: new-server gives the package the lockfile entries the workspace already
    // has, so pnpm has nothing to resolve (before: ERR_PNPM_NO_OFFLINE_META for @types/node).
    const { CI: _ci, ...environment } = process.env;
    const personal = {
      ...environment,
      npm_config_offline: 'true',
      npm_config_cache_dir: join(root, '.no-metadata'),
    };
    const outputs = contributingSteps().map((line) =>
      execFileSync('bash', ['-c', line], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: personal,
      }),
    );
    expect(outputs[0]).toContain('Created mcp_servers/team-wiki (@ai-assistant/mcp-server-team-wiki)');
    expect(stripVTControlCharacters(outputs.at(-1) ?? '')).toMatch(/Tests\s+2 passed/);
    pnpm('lint'); // throws on any lint or format problem
    expect(findSeparationViolations(join(root, 'mcp_servers'), root)).toEqual([]);
    const config = JSON.parse(readFileSync(join(root, 'config', 'mcp_servers.json'), 'utf8')) as {
      mcpServers: Record<string, { disabled?: boolean; args?: string[] }>;
    };
    expect(config.mcpServers['team-wiki']).toEqual({
      command: 'node',
      args: ['../mcp_servers/team-wiki/dist/index.js'],
      disabled: true,
    });
    // Only the new entry is added: every other entry keeps its text (a JSON round trip rewrote them).
    const written = readFileSync(join(root, 'config', 'mcp_servers.json'), 'utf8');
    expect(written.replace(/,\n {4}"team-wiki": \{[^}]*\}/, '')).toBe(
      readFileSync(join(repoRoot, 'config', 'mcp_servers.json'), 'utf8'),
    );
    // An edit to the new server is built by pnpm chat / pnpm start (every workspace, not only the
    // shipped servers): before, the old description stayed.
    const source = join(root, 'mcp_servers', 'team-wiki', 'src', 'server.ts');
    writeFileSync(
      source,
      readFileSync(source, 'utf8').replace('Greets a person by name.', 'Greets a teammate warmly.'),
    );
    const started = execFileSync('bash', ['-c', `npx --yes pnpm@${pnpmVersion} chat --help`], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: personal,
    });
    expect(started).toContain('Usage: pnpm chat');
    expect(readFileSync(join(root, 'mcp_servers', 'team-wiki', 'dist', 'server.js'), 'utf8')).toContain(
      'Greets a teammate warmly.',
    );
    // A bad name is refused with the rule.
    expect(() => pnpm('new-server', 'Bad_Name')).toThrow(/lower-case letters, digits and single hyphens/);
  }, 300_000);
});
