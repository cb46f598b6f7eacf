import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const entry = resolve(import.meta.dirname, '..', 'dist', 'index.js');
const text = (result: CallToolResult) =>
  result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');

describe('knowledge server over stdio', () => {
  let folder: string;
  let client: Client;
  let stderr = '';
  let listChanged = 0;
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'kb-'));
    writeFileSync(
      join(folder, 'deploy.md'),
      '# Deploy process\n\n## Staging\nRun the pipeline and check the dashboard.\n\n## Rollback\nRevert the release tag, then redeploy.\n',
    );
    writeFileSync(
      join(folder, 'vacation.md'),
      '# 休暇の申請\n\n## 手順\n有給休暇は三日前までに申請してください。承認は上長が行います。\n\n## 連絡先\n人事部の鈴木さんへ。\n',
    );
    writeFileSync(join(folder, 'notes.txt'), 'Office Wi-Fi password rotates every month.\n');
    writeFileSync(join(folder, 'logo.png'), 'not really a png');
    symlinkSync(join(folder, 'missing-target.md'), join(folder, 'broken.md'));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [entry, '--docs', folder],
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    client = new Client({ name: 'kb-test', version: '0' });
    client.setNotificationHandler('notifications/resources/list_changed', async () => {
      listChanged++;
    });
    await client.connect(transport);
  });
  afterAll(async () => {
    await client?.close();
    rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
  });

  it('finds the right passages in Japanese and in English, with structured results', async () => {
    const japanese = (await client.callTool({
      name: 'search_knowledge',
      arguments: { query: '休暇はいつまでに申請？' },
    })) as CallToolResult;
    const results = (
      japanese.structuredContent as { results: Array<{ title: string; heading: string; uri: string }> }
    ).results;
    expect(results[0]).toMatchObject({
      title: '休暇の申請',
      heading: '休暇の申請 › 手順',
      uri: 'kb://documents/vacation.md',
    });
    expect(text(japanese)).toContain('三日前までに申請');
    const english = (await client.callTool({
      name: 'search_knowledge',
      arguments: { query: 'how do I roll back a release', limit: 1 },
    })) as CallToolResult;
    expect((english.structuredContent as { results: Array<{ heading: string }> }).results).toEqual([
      expect.objectContaining({ heading: 'Deploy process › Rollback' }),
    ]);
    const none = (await client.callTool({
      name: 'search_knowledge',
      arguments: { query: 'zebra' },
    })) as CallToolResult;
    expect(text(none)).toBe('No passages match "zebra".');
  });

  it('get_document returns a document; an unknown id is an error naming known ids', async () => {
    expect(
      text(
        (await client.callTool({ name: 'get_document', arguments: { id: 'notes.txt' } })) as CallToolResult,
      ),
    ).toContain('Wi-Fi password');
    const missing = (await client.callTool({
      name: 'get_document',
      arguments: { id: 'nope.md' },
    })) as CallToolResult;
    expect(missing.isError).toBe(true);
    expect(text(missing)).toContain('deploy.md');
  });

  it('lists and reads resources, including the kb://documents/{id} template', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri).sort()).toEqual([
      'kb://documents',
      'kb://documents/deploy.md',
      'kb://documents/notes.txt',
      'kb://documents/vacation.md',
      'kb://settings',
    ]);
    const settings = JSON.parse(
      ((await client.readResource({ uri: 'kb://settings' })).contents[0] as { text: string }).text,
    );
    expect(settings).toMatchObject({ documents: 3, search: 'lexical (BM25)', embeddings: null });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(['kb://documents/{id}']);
    const list = await client.readResource({ uri: 'kb://documents' });
    const documents = JSON.parse((list.contents[0] as { text: string }).text) as Array<{
      id: string;
      title: string;
      size: number;
      updated: string;
    }>;
    expect(documents.map((document) => document.title).sort()).toEqual([
      'Deploy process',
      'notes',
      '休暇の申請',
    ]);
    expect(
      documents.every((document) => document.size > 0 && !Number.isNaN(Date.parse(document.updated))),
    ).toBe(true);
    const one = await client.readResource({ uri: 'kb://documents/vacation.md' });
    expect(one.contents[0]).toMatchObject({
      mimeType: 'text/markdown',
      text: expect.stringContaining('人事部'),
    });
  });

  it('offers the two prompts and fills them', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name).sort()).toEqual([
      'answer_with_context',
      'summarize_document',
    ]);
    const answer = await client.getPrompt({
      name: 'answer_with_context',
      arguments: { question: 'rollback' },
    });
    const body = answer.messages[0]?.content.type === 'text' ? answer.messages[0].content.text : '';
    expect(body).toContain('Revert the release tag');
    expect(body).toContain('Cite each document');
    const summary = await client.getPrompt({ name: 'summarize_document', arguments: { id: 'deploy.md' } });
    const summaryText = summary.messages[0]?.content.type === 'text' ? summary.messages[0].content.text : '';
    expect(summaryText).toContain('Run the pipeline');
    // The document's own heading is its title: said once, not twice.
    const title = summaryText.split('\n').filter((line) => line.startsWith('# '));
    expect(title).toHaveLength(1);
  });

  it('reports files it skipped: unreadable ones and non-text ones, without failing', () => {
    expect(stderr).toMatch(/"msg":"file skipped","file":"broken.md","reason":"cannot be read \(ENOENT\)"/);
    expect(stderr).toMatch(/"file":"logo.png","reason":"not Markdown, text, HTML, PDF or DOCX"/);
  });

  it('picks up a changed folder: rebuilds the index and sends resources/list_changed', async () => {
    writeFileSync(
      join(folder, 'onboarding.md'),
      '# Onboarding\n\nNew hires get a laptop and a badge on day one.\n',
    );
    const deadline = Date.now() + 10_000;
    let found = false;
    while (!found && Date.now() < deadline) {
      await new Promise((resolvePromise) => setTimeout(resolvePromise, 100));
      const result = (await client.callTool({
        name: 'search_knowledge',
        arguments: { query: 'laptop badge' },
      })) as CallToolResult;
      found = text(result).includes('Onboarding');
    }
    expect(found).toBe(true);
    expect(listChanged).toBeGreaterThan(0);
  });
});

describe('command line', () => {
  it('a folder that does not exist is a clear error', async () => {
    const { spawnSync } = await import('node:child_process');
    const result = spawnSync(process.execPath, [entry, '--docs', '/nonexistent/folder'], {
      encoding: 'utf8',
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('/nonexistent/folder is not a folder');
    expect(spawnSync(process.execPath, [entry, '--bogus'], { encoding: 'utf8' }).status).toBe(2);
  });
});
