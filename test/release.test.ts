import { readdirSync, readFileSync } from 'node:fs';
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
