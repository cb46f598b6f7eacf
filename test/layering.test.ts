import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const source = resolve(import.meta.dirname, '..', 'packages', 'host-core', 'src');

describe('host-core layering', () => {
  it('no module in mcp/ (or tools/, config/) imports from chat/: the loop depends on MCP, not the reverse', () => {
    const offenders: string[] = [];
    for (const folder of ['mcp', 'tools', 'config']) {
      for (const file of readdirSync(join(source, folder)).filter((name) => name.endsWith('.ts'))) {
        const text = readFileSync(join(source, folder, file), 'utf8');
        text.split('\n').forEach((line, index) => {
          if (/from\s+['"]\.\.\/chat\//.test(line) || /import\(\s*['"]\.\.\/chat\//.test(line))
            offenders.push(`${folder}/${file}:${index + 1}: ${line.trim()}`);
        });
      }
    }
    expect(offenders).toEqual([]);
  });
});
