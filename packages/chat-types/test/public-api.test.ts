import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HostError, silentLogger } from '../src/index.js';

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

describe('chat-types', () => {
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

  it('#44 a HostError carries its code and cause, and a subclass keeps both', () => {
    class Refused extends HostError {
      override name = 'Refused';
    }
    const cause = new Error('underneath');
    const error = new Refused('REFUSED_ADDRESS', 'no', { cause });
    expect(error).toBeInstanceOf(HostError);
    expect(error).toBeInstanceOf(Error);
    expect({ code: error.code, name: error.name, message: error.message, cause: error.cause }).toEqual({
      code: 'REFUSED_ADDRESS',
      name: 'Refused',
      message: 'no',
      cause,
    });
  });

  it('#44 has no runtime dependencies', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(() => silentLogger.error({ a: 1 }, 'dropped')).not.toThrow();
  });
});
