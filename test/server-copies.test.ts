import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const repoRoot = resolve(import.meta.dirname, '..');

// The MCP servers may not share code with each other (each must move to its own repository as it is),
// so these modules are deliberate copies. A fix to one must reach the other.
const copies = ['src/http.ts', 'src/log.ts'];

describe('the servers’ deliberate copies stay identical', () => {
  for (const file of copies) {
    it(file, () => {
      const [weather, knowledge] = ['weather', 'knowledge'].map((server) =>
        readFileSync(join(repoRoot, 'mcp_servers', server, file), 'utf8'),
      );
      expect(knowledge, `mcp_servers/knowledge/${file} drifted from mcp_servers/weather/${file}`).toBe(
        weather,
      );
    });
  }
});
