import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDocuments } from '../src/documents.js';
import { KnowledgeBase } from '../src/knowledge-base.js';

const entry = resolve(import.meta.dirname, '..', 'dist', 'index.js');
const text = (result: CallToolResult) =>
  result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
const quiet = { info() {}, warn() {}, error() {} };

describe('hardening 2: the server reads only regular files inside its folder', () => {
  const secret = 'knowledge-env-secret-31337';
  let folder: string;
  let outside: string;
  let client: Client;
  let stderr = '';
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'kb-attack-'));
    outside = mkdtempSync(join(tmpdir(), 'kb-outside-'));
    writeFileSync(join(outside, 'private.md'), '# Private\n\nroot password is hunter2\n');
    writeFileSync(join(folder, 'guide.md'), '# Guide\n\nThe deploy guide explains root cause analysis.\n');
    symlinkSync('/etc/passwd', join(folder, 'passwd.txt'));
    symlinkSync('/proc/self/environ', join(folder, 'environ.txt'));
    symlinkSync(join(outside, 'private.md'), join(folder, 'private.md'));
    symlinkSync(outside, join(folder, 'outside-dir'));
    symlinkSync(join(folder, 'guide.md'), join(folder, 'guide-link.md')); // inside: allowed
    mkdirSync(join(folder, 'loop'));
    symlinkSync(folder, join(folder, 'loop', 'back')); // a cycle back to the root
    execFileSync('mkfifo', [join(folder, 'pipe.md')]);
    writeFileSync(join(folder, 'huge.md'), `# Huge\n\n${'大きな文書。'.repeat(200_000)}`); // ~3.6 MB
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [entry, '--docs', folder],
      env: { PATH: process.env.PATH ?? '', UPSTREAM_TOKEN: secret },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    client = new Client({ name: 'attacker', version: '1' });
    // A FIFO used to hang start-up: the connection must come up well within the host's 10 s.
    await client.connect(transport, { timeout: 10_000 });
  }, 20_000);
  afterAll(async () => {
    await client?.close();
    rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
    rmSync(outside, { recursive: true, force: true, maxRetries: 5 });
  });

  it('indexes neither /etc/passwd, /proc/self/environ, a file or folder outside, a FIFO nor a file over 2 MB', async () => {
    const listed = await client.listResources();
    const names = listed.resources.map((resource) => resource.uri);
    expect(names.some((uri) => /guide\.md/.test(uri))).toBe(true);
    expect(names.some((uri) => /guide-link\.md/.test(uri))).toBe(true);
    expect(names.filter((uri) => /passwd|environ|private|outside-dir|pipe|huge/.test(uri))).toEqual([]);
    for (const query of ['root', secret, 'hunter2', 'UPSTREAM_TOKEN', '大きな文書']) {
      const result = (await client.callTool({
        name: 'search_knowledge',
        arguments: { query },
      })) as CallToolResult;
      // The answer may echo the query itself; no indexed text may carry these.
      expect(text(result).split(query).join(''), query).not.toMatch(
        /root:x:0|hunter2|knowledge-env-secret|大きな文書/,
      );
    }
    const direct = (await client.callTool({
      name: 'get_document',
      arguments: { id: 'passwd.txt' },
    })) as CallToolResult;
    expect(direct.isError).toBe(true);
  });

  it('logs each skip with its reason', () => {
    expect(stderr).toMatch(/passwd\.txt.*links outside the documents folder/);
    expect(stderr).toMatch(/environ\.txt.*links outside the documents folder/);
    expect(stderr).toMatch(/outside-dir.*links outside the documents folder/);
    expect(stderr).toMatch(/pipe\.md.*not a regular file/);
    expect(stderr).toMatch(/huge\.md.*larger than 2097152 bytes/);
    expect(stderr).not.toContain(secret);
  });
});

describe('hardening 9: a rebuild never blocks searches', () => {
  it('a search issued during a rebuild is answered from the old index before the rebuild ends', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'kb-rebuild-'));
    try {
      for (let file = 0; file < 20; file++) {
        const sections = Array.from(
          { length: 100 },
          (_, index) =>
            `## Section ${file}-${index}\n\nDeploy notes ${index}: rollback steps and staging checks.`,
        );
        writeFileSync(join(folder, `notes-${file}.md`), `# Notes ${file}\n\n${sections.join('\n\n')}`);
      }
      const knowledge = new KnowledgeBase(folder, quiet);
      await knowledge.rebuild();
      let rebuilt = false;
      const rebuilding = knowledge.rebuild().then(() => {
        rebuilt = true;
      });
      const answeredDuringRebuild: boolean[] = [];
      for (let round = 0; round < 5; round++) {
        await new Promise((resolvePromise) => setImmediate(resolvePromise));
        const hits = knowledge.search('rollback staging');
        answeredDuringRebuild.push(hits.length > 0 && !rebuilt);
      }
      await rebuilding;
      expect(answeredDuringRebuild.filter(Boolean).length).toBeGreaterThan(0);
      expect(knowledge.stats().passages).toBeGreaterThanOrEqual(2000);
    } finally {
      rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
    }
  });
});

describe('hardening 3: a file swapped between the check and the open is not read', () => {
  it('a link to /proc/self/environ or a FIFO swapped in after the walk is skipped, and the load never blocks', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'kb-swap-'));
    try {
      writeFileSync(join(folder, 'notes.md'), '# Notes\n\nharmless\n');
      writeFileSync(join(folder, 'pipe.md'), '# Pipe\n\nharmless\n');
      writeFileSync(join(folder, 'kept.md'), '# Kept\n\nstays readable\n');
      const { documents, skipped } = await loadDocuments(folder, {
        betweenWalkAndRead: () => {
          // What an attacker with write access to the folder does during a rebuild.
          rmSync(join(folder, 'notes.md'));
          symlinkSync('/proc/self/environ', join(folder, 'notes.md'));
          rmSync(join(folder, 'pipe.md'));
          execFileSync('mkfifo', [join(folder, 'pipe.md')]);
        },
      });
      // Before: notes.md was read through the link and served this process's environment.
      expect(JSON.stringify(documents)).not.toMatch(/PATH=/);
      expect(documents.map((document) => document.path)).toEqual(['kept.md']);
      expect(skipped.map((entry) => entry.path).sort()).toEqual(['notes.md', 'pipe.md']);
      for (const entry of skipped)
        expect(entry.reason).toMatch(/cannot be read \(ELOOP\)|changed while the folder was read/);
    } finally {
      rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
    }
  });
});
