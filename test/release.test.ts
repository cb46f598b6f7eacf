import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const repoRoot = resolve(import.meta.dirname, '..');

/** Every workspace's package.json. */
function manifests(): Array<{ name: string; private?: boolean }> {
  return ['packages', 'apps', 'mcp_servers'].flatMap((group) =>
    readdirSync(join(repoRoot, group)).flatMap((folder) => {
      try {
        return [JSON.parse(readFileSync(join(repoRoot, group, folder, 'package.json'), 'utf8'))];
      } catch {
        return [];
      }
    }),
  );
}

describe('changesets', () => {
  it('offers only the published packages: every private workspace is ignored, and private packages are never versioned', () => {
    const config = JSON.parse(readFileSync(join(repoRoot, '.changeset', 'config.json'), 'utf8')) as {
      ignore: string[];
      privatePackages?: { version?: boolean; tag?: boolean };
    };
    const privateNames = manifests()
      .filter((manifest) => manifest.private)
      .map((manifest) => manifest.name)
      .sort();
    // Before: store and test-kit were offered by `pnpm changeset`.
    expect(privateNames).toEqual(expect.arrayContaining(['@ai-assistant/store', '@ai-assistant/test-kit']));
    expect([...config.ignore].sort()).toEqual(privateNames);
    expect(config.privatePackages).toEqual({ version: false, tag: false });
  });
});

describe('the release plan', () => {
  it('bumps no package a major version that no changeset asked for (before: llm-providers 1.0.0 through its peer dependency)', () => {
    const folder = mkdtempSync(join(tmpdir(), 'changeset-status-'));
    try {
      const output = join(folder, 'status.json');
      execFileSync(join(repoRoot, 'node_modules', '.bin', 'changeset'), ['status', '--output', output], {
        cwd: repoRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const plan = JSON.parse(readFileSync(output, 'utf8')) as {
        changesets: Array<{ releases: Array<{ name: string; type: string }> }>;
        releases: Array<{ name: string; type: string; newVersion: string }>;
      };
      const asked = new Set(
        plan.changesets.flatMap((changeset) =>
          changeset.releases.filter((release) => release.type === 'major').map((release) => release.name),
        ),
      );
      const unasked = plan.releases.filter((release) => release.type === 'major' && !asked.has(release.name));
      expect(unasked.map((release) => `${release.name} → ${release.newVersion}`)).toEqual([]);
    } finally {
      rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
    }
  });
});
