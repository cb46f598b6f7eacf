import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');

/** Every name the entry exports (values and types), read from its `export { … }` lists. */
function exportedNames(): string[] {
  const text = readFileSync(join(root, 'src', 'index.ts'), 'utf8');
  return [...text.matchAll(/export (?:type )?\{([^}]*)\}/g)].flatMap((match) =>
    (match[1] as string)
      .split(',')
      .map((part) => part.trim().replace(/^type\s+/, ''))
      .filter(Boolean),
  );
}

describe('the assistant package', () => {
  it('#44 the entry exports every name the README documents and nothing else', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('## Public API'));
    const documented = new Set(
      [...table.matchAll(/^\| [^|]+ \| (.*) \|$/gm)].flatMap((row) =>
        [...(row[1] as string).matchAll(/`([A-Za-z]+)`/g)].map((name) => name[1] as string),
      ),
    );
    const exported = exportedNames();
    expect(exported.filter((name) => !documented.has(name))).toEqual([]);
    expect([...documented].filter((name) => !exported.includes(name))).toEqual([]);
  });
});
