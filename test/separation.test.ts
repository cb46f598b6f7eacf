import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findSeparationViolations } from './separation.js';

const repoRoot = resolve(import.meta.dirname, '..');

// The rule: each folder under mcp_servers/ (every server, and the shared kit) moves to its own repository
// as it is. It may depend on npm packages by name, @ai-assistant/mcp-server-kit included (the one shared
// published package); it may not depend on a workspace package of packages/ or apps/, nor import a path
// that leaves its folder.
describe('separation rule: mcp_servers/* depend on npm packages by name and talk to the host through MCP only', () => {
  it('holds for every server and the kit in this repository', () => {
    const violations = findSeparationViolations(join(repoRoot, 'mcp_servers'), repoRoot);
    const report = violations.map((violation) => `${violation.file}: ${violation.detail}`).join('\n');
    expect(report, `MCP servers must not reach into packages/ or apps/:\n${report}`).toBe('');
  });

  describe('the checker itself', () => {
    let scratch: string;
    afterEach(() => rmSync(scratch, { recursive: true, force: true, maxRetries: 5 }));

    /** A scratch repository: host packages under packages/ and apps/, and one server with these files. */
    function serverWith(files: Record<string, string>): string {
      scratch = mkdtempSync(join(tmpdir(), 'separation-'));
      const write = (path: string, text: string) => {
        const full = join(scratch, path);
        mkdirSync(resolve(full, '..'), { recursive: true });
        writeFileSync(full, text);
      };
      write('packages/host-core/package.json', '{"name":"@ai-assistant/host-core"}');
      write('packages/llm-providers/package.json', '{"name":"@ai-assistant/llm-providers"}');
      write('apps/slack-bot/package.json', '{"name":"@ai-assistant/slack-bot","private":true}');
      for (const [path, text] of Object.entries(files)) write(join('mcp_servers', 'demo', path), text);
      return join(scratch, 'mcp_servers');
    }

    it('names the file that imports a host package', () => {
      const root = serverWith({
        'package.json': '{"name":"@ai-assistant/mcp-server-demo"}',
        'src/index.ts':
          "import { x } from 'zod';\nimport '@ai-assistant/host-core/internal';\nimport { runServer } from '@ai-assistant/mcp-server-kit';\n",
      });
      const violations = findSeparationViolations(root, scratch);
      expect(violations).toHaveLength(1);
      expect(violations[0]?.file).toBe(join('mcp_servers', 'demo', 'src', 'index.ts:2'));
    });

    it('catches relative imports that leave the folder, dynamic imports and require', () => {
      const root = serverWith({
        'src/a.ts': "export * from '../../../packages/host-core/src/index.js';",
        'src/b.ts': "const m = await import('../../server-kit/src/index.js');",
        'src/c.cjs': "const m = require('@ai-assistant/llm-providers');",
        'src/ok.ts': "import { y } from './local.js';\nimport { z } from '../src/local.js';",
      });
      const files = findSeparationViolations(root, scratch).map((violation) => violation.file);
      expect(files.sort()).toEqual(
        ['src/a.ts:1', 'src/b.ts:1', 'src/c.cjs:1'].map((path) => join('mcp_servers', 'demo', path)),
      );
    });

    it('#45 allows the kit by name (from the workspace too); refuses host packages and other workspace links', () => {
      const root = serverWith({
        'package.json': JSON.stringify({
          name: '@ai-assistant/mcp-server-demo',
          dependencies: {
            '@ai-assistant/mcp-server-kit': 'workspace:^',
            '@modelcontextprotocol/server': '^2.4.0',
            '@ai-assistant/host-core': '^1.0.0',
            zod: '^4',
          },
          devDependencies: { helper: 'workspace:^', local: 'file:../../helper' },
        }),
      });
      const details = findSeparationViolations(root, scratch).map((violation) => violation.detail);
      expect(details).toHaveLength(3);
      expect(details[0]).toContain('@ai-assistant/host-core, a package of packages/ or apps/');
      expect(details[1]).toContain('helper@workspace:^');
      expect(details[2]).toContain('local@file:../../helper');
    });
  });
});
