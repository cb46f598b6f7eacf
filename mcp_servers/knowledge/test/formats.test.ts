import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Document, Packer, Paragraph, TextRun } from 'docx';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const entry = resolve(import.meta.dirname, '..', 'dist', 'index.js');

/** A one-page PDF with a real text layer. */
async function pdfWith(lines: string[]): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const page = pdf.addPage([595, 842]);
  lines.forEach((line, index) => {
    page.drawText(line, { x: 50, y: 780 - index * 20, size: 12, font });
  });
  return pdf.save();
}

describe('knowledge server: PDF, DOCX and HTML files beside Markdown', () => {
  let folder: string;
  let client: Client;
  let stderr = '';
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'kb-formats-'));
    writeFileSync(
      join(folder, 'leave-policy.pdf'),
      await pdfWith(['Leave policy', 'Annual paid leave is granted six months after joining the company.']),
    );
    const docx = new Document({
      sections: [
        {
          children: [
            new Paragraph({ children: [new TextRun('Expense reports')] }),
            new Paragraph({
              children: [new TextRun('Submit receipts for reimbursement within thirty days.')],
            }),
          ],
        },
      ],
    });
    writeFileSync(join(folder, 'expenses.docx'), await Packer.toBuffer(docx));
    writeFileSync(
      join(folder, 'onboarding.html'),
      '<html><head><title>Onboarding checklist</title><script>var secret = 1;</script></head><body><h1>Onboarding</h1><p>Collect your laptop from the IT desk on the second floor.</p></body></html>',
    );
    writeFileSync(join(folder, 'broken.pdf'), 'this is not a PDF at all');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [entry, '--docs', folder],
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    client = new Client({ name: 'kb-formats', version: '0' });
    await client.connect(transport);
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
  });

  const search = async (query: string) =>
    (
      (
        (await client.callTool({
          name: 'search_knowledge',
          arguments: { query, limit: 1 },
        })) as CallToolResult
      ).structuredContent as { results: Array<{ title: string; uri: string; excerpt: string }> }
    ).results[0];

  it('indexes each format, found and cited by its kb:// URI', async () => {
    // The index is built in the background; wait (bounded) until the PDF is in it.
    const deadline = Date.now() + 20_000;
    let pdf = await search('annual paid leave');
    while (!pdf && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 100));
      pdf = await search('annual paid leave');
    }
    expect(pdf).toMatchObject({ uri: 'kb://documents/leave-policy.pdf' });
    expect(pdf?.excerpt).toContain('six months after joining');
    expect(await search('receipts reimbursement')).toMatchObject({ uri: 'kb://documents/expenses.docx' });
    const html = await search('laptop IT desk');
    expect(html).toMatchObject({ uri: 'kb://documents/onboarding.html', title: 'Onboarding checklist' });
    expect(html?.excerpt).not.toContain('var secret');
  });

  it('a file that cannot be read as its format is skipped with the reason; the rest is served', async () => {
    expect(stderr).toMatch(/broken\.pdf.*cannot be read as PDF/);
    const read = await client.readResource({ uri: 'kb://documents/expenses.docx' });
    expect(read.contents[0]).toMatchObject({ mimeType: 'text/plain' });
    expect((read.contents[0] as { text: string }).text).toContain('within thirty days');
  });
});
