import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const repoRoot = resolve(import.meta.dirname, '..');

/** Every name a package's entry exports (values and types), read from its `export { … }` lists. */
function exportedNames(pkg: string): string[] {
  const text = readFileSync(join(repoRoot, pkg, 'src', 'index.ts'), 'utf8');
  return [...text.matchAll(/export (?:type )?\{([^}]*)\}/g)].flatMap((match) =>
    (match[1] as string)
      .split(',')
      .map((part) => part.trim().replace(/^type\s+/, ''))
      .filter(Boolean),
  );
}

/** The names in backticks in the rows of a README's "Public API" table. */
function documentedNames(pkg: string): Set<string> {
  const readme = readFileSync(join(repoRoot, pkg, 'README.md'), 'utf8');
  const table = readme.slice(readme.indexOf('## Public API'));
  return new Set(
    [...table.matchAll(/^\| [^|]+ \| (.*) \|$/gm)].flatMap((row) =>
      [...(row[1] as string).matchAll(/`([A-Za-z]+)`/g)].map((name) => name[1] as string),
    ),
  );
}

// host-core's own check is packages/host-core/test/public-api.test.ts (it also covers ./internal).
describe('#44 #45 each new package README lists its public API', () => {
  for (const pkg of ['packages/chat-types', 'packages/assistant', 'mcp_servers/server-kit'])
    it(`#44 ${pkg}: the entry exports every name its README documents and nothing else`, () => {
      const documented = documentedNames(pkg);
      const exported = exportedNames(pkg);
      expect(exported.filter((name) => !documented.has(name))).toEqual([]);
      expect([...documented].filter((name) => !exported.includes(name))).toEqual([]);
    });
});
