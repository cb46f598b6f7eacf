import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findSeparationViolations } from './separation.js';

const repoRoot = resolve(import.meta.dirname, '..');

describe('separation rule: mcp_servers/* talk to the host through MCP only', () => {
  it('holds for every server in this repository', () => {
    const violations = findSeparationViolations(join(repoRoot, 'mcp_servers'), repoRoot);
    const report = violations.map((violation) => `${violation.file}: ${violation.detail}`).join('\n');
    expect(report, `MCP servers must not reach into packages/ or apps/:\n${report}`).toBe('');
  });

  describe('the checker itself', () => {
    let scratch: string;
    afterEach(() => rmSync(scratch, { recursive: true, force: true, maxRetries: 5 }));

    function serverWith(files: Record<string, string>): string {
      scratch = mkdtempSync(join(tmpdir(), 'separation-'));
      for (const [path, text] of Object.entries(files)) {
        const full = join(scratch, 'mcp_servers', 'demo', path);
        mkdirSync(resolve(full, '..'), { recursive: true });
        writeFileSync(full, text);
      }
      return join(scratch, 'mcp_servers');
    }

    it('names the file that imports a host package', () => {
      const root = serverWith({
        'package.json': '{"name":"@ai-assistant/mcp-server-demo"}',
        'src/index.ts': "import { x } from 'zod';\nimport '@ai-assistant/host-core';\n",
      });
      const violations = findSeparationViolations(root, scratch);
      expect(violations).toHaveLength(1);
      expect(violations[0]?.file).toBe(join('mcp_servers', 'demo', 'src', 'index.ts:2'));
    });

    it('catches relative imports that leave the folder, dynamic imports and require', () => {
      const root = serverWith({
        'src/a.ts': "export * from '../../../packages/host-core/src/index.js';",
        'src/b.ts': "const m = await import('../../other/x.js');",
        'src/c.cjs': "const m = require('@ai-assistant/llm-providers');",
        'src/ok.ts': "import { y } from './local.js';\nimport { z } from '../src/local.js';",
      });
      const files = findSeparationViolations(root, scratch).map((violation) => violation.file);
      expect(files.sort()).toEqual(
        ['src/a.ts:1', 'src/b.ts:1', 'src/c.cjs:1'].map((path) => join('mcp_servers', 'demo', path)),
      );
    });

    it('catches workspace dependencies in package.json', () => {
      const root = serverWith({
        'package.json': JSON.stringify({
          name: '@ai-assistant/mcp-server-demo',
          dependencies: { '@ai-assistant/host-core': 'workspace:*', zod: '^4' },
          devDependencies: { helper: 'workspace:^' },
        }),
      });
      const details = findSeparationViolations(root, scratch).map((violation) => violation.detail);
      expect(details).toHaveLength(2);
      expect(details[0]).toContain('@ai-assistant/host-core');
    });
  });
});
