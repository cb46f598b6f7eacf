import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');

/** Every name an entry file exports (values and types), read from its `export { … }` lists. */
function exportedNames(file: string): string[] {
  const text = readFileSync(join(root, 'src', file), 'utf8');
  return [...text.matchAll(/export (?:type )?\{([^}]*)\}/g)].flatMap((match) =>
    (match[1] as string)
      .split(',')
      .map((part) => part.trim().replace(/^type\s+/, ''))
      .filter(Boolean)
      .map((part) => part.split(/\s+as\s+/).at(-1) as string),
  );
}

describe('the public API is what the README documents', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const publicSection = readme.slice(readme.indexOf('## Public API'));
  const documented = new Set(
    [
      ...publicSection
        .slice(0, publicSection.indexOf('@ai-assistant/host-core/internal'))
        .matchAll(/`([A-Za-z]+)`/g),
    ].map((match) => match[1] as string),
  );

  it('the main entry exports every documented name and nothing else', () => {
    const exported = exportedNames('index.ts');
    expect(exported.filter((name) => !documented.has(name))).toEqual([]);
    expect([...documented].filter((name) => !exported.includes(name))).toEqual([]);
  });

  it('internals live only in ./internal', () => {
    const internal = exportedNames('internal.ts');
    expect(internal.length).toBeGreaterThan(0);
    expect(internal.filter((name) => exportedNames('index.ts').includes(name))).toEqual([]);
    for (const name of internal) expect(readme).toContain(`\`${name}\``);
  });
});
