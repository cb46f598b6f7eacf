import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runServer } from './spawn.js';

describe('command line', () => {
  it('--help prints usage on stdout and exits 0', async () => {
    const result = await runServer(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: mcp-server-weather');
    // Every environment variable the server reads is explained.
    const sourceFolder = join(import.meta.dirname, '..', 'src');
    const read = new Set<string>();
    for (const file of readdirSync(sourceFolder).filter((name) => name.endsWith('.ts')))
      for (const match of readFileSync(join(sourceFolder, file), 'utf8').matchAll(/process\.env\.([A-Z_]+)/g))
        read.add(match[1] as string);
    expect(read.size).toBeGreaterThan(2);
    for (const name of read) expect(result.stdout).toContain(`  ${name} `);
  });

  it('--version prints the package version', async () => {
    const result = await runServer(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('bad flags are a usage error with exit code 2', async () => {
    for (const args of [['--bogus'], ['--http', '--port', 'abc'], ['--port', '3000'], ['extra']]) {
      const result = await runServer(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('Usage:');
      expect(result.stdout).toBe('');
    }
  });
});
