import { deflateSync } from 'node:zlib';
import { botUserId, completion } from '@ai-assistant/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pdfText } from '../src/slack/pdf-text.js';
import { type Harness, startHarness, waitFor } from './harness.js';

/** A one-page PDF whose page content is `content`, FlateDecode-compressed (as a hostile one would be). */
function pdfOf(content: Buffer): Buffer {
  const stream = deflateSync(content);
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  const offsets: number[] = [];
  const object = (body: Buffer | string) => {
    offsets.push(parts.reduce((sum, part) => sum + part.length, 0));
    parts.push(Buffer.from(`${offsets.length} 0 obj\n`), Buffer.from(body), Buffer.from('\nendobj\n'));
  };
  object('<< /Type /Catalog /Pages 2 0 R >>');
  object('<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  object(
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
  );
  object(
    Buffer.concat([
      Buffer.from(`<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`),
      stream,
      Buffer.from('\nendstream'),
    ]),
  );
  object('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const xref = parts.reduce((sum, part) => sum + part.length, 0);
  const entries = offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  parts.push(
    Buffer.from(
      `xref\n0 ${offsets.length + 1}\n0000000000 65535 f \n${entries}trailer\n<< /Size ${offsets.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`,
    ),
  );
  return Buffer.concat(parts);
}

/** Page content showing `runs` strings of `run` characters each, all on the page (PDF.js drops text off it). */
const textRuns = (runs: number, run: number) =>
  Buffer.from(`BT /F1 1 Tf\n${`1 0 0 1 72 700 Tm (${'A'.repeat(run)}) Tj\n`.repeat(runs)}ET\n`);

const limits = { chars: 30_000, inflatedBytes: 32 * 1024 * 1024 };

describe('#43.11 a hostile PDF: the text extraction is capped and killable', () => {
  it('#43.11 a page of 1,000,000 characters gives no more than the 30,000 kept', async () => {
    const bytes = pdfOf(textRuns(10_000, 100));
    expect(bytes.length).toBeLessThan(20_000);
    const text = await pdfText(bytes, limits, AbortSignal.timeout(60_000));
    expect(text.length).toBeGreaterThan(0);
    expect(text.length).toBeLessThanOrEqual(limits.chars);
  }, 90_000);

  it('#43.11 a small PDF whose page inflates past 32 MB is refused before it is parsed', async () => {
    const bytes = pdfOf(textRuns(1_200_000, 10));
    expect(bytes.length).toBeLessThan(400_000);
    const events: string[] = [];
    await expect(
      pdfText(bytes, limits, AbortSignal.timeout(60_000), (event) => events.push(event)),
    ).rejects.toThrow(/32 MB/);
    expect(events).toEqual(['started', 'refused']);
  }, 90_000);

  it('#43.11 at its deadline the extraction’s worker is terminated, whatever it is doing', async () => {
    const bytes = pdfOf(textRuns(10_000, 100));
    const deadline = new AbortController();
    const events: string[] = [];
    const reading = pdfText(bytes, limits, deadline.signal, (event) => {
      events.push(event);
      // The deadline passes as soon as the worker has begun.
      if (event === 'started') deadline.abort(new Error('deadline'));
    });
    await expect(reading).rejects.toThrow('時間内');
    await waitFor(() => events.includes('terminated'));
    expect(events.slice(0, 2)).toEqual(['started', 'terminated']);
  }, 90_000);
});

describe('#43.11 budgets and the rate are checked before any attachment is read', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ env: { RATE_LIMIT_QUESTIONS_PER_MINUTE: '1' } });
    harness.llm.respondWith((request) => completion(request, { text: '受け取りました' }));
  }, 60_000);
  afterAll(() => harness?.close());

  it('#43.11 a question past the rate: its PDF is never downloaded', async () => {
    const first = await harness.slack.mention('C4311', 'こんにちは');
    await waitFor(() =>
      harness.slack
        .thread('C4311', first.ts)
        .find((message) => message.user === botUserId && message.text.startsWith('受け取りました')),
    );
    const file = harness.slack.attach({
      name: 'report.pdf',
      mimetype: 'application/pdf',
      bytes: pdfOf(textRuns(10, 10)),
    });
    const second = await harness.slack.mention('C4311', 'これを読んで', { files: [file] });
    const answer = await waitFor(() =>
      harness.slack
        .thread('C4311', second.ts)
        .find((message) => message.user === botUserId && /faster than/.test(message.text)),
    );
    expect(answer.text).toMatch(/1 questions a minute/);
    // Before: the file was downloaded (and its text extracted) before the turn was refused.
    expect(harness.slack.downloads.filter((entry) => entry.id === file.id)).toEqual([]);
  }, 60_000);

  it('#43.11 through Slack, a PDF that inflates past the cap is named in the answer, its text never read', async () => {
    const file = harness.slack.attach({
      name: 'bomb.pdf',
      mimetype: 'application/pdf',
      bytes: pdfOf(textRuns(1_200_000, 10)),
      user: 'UHUMAN02',
    });
    const asked = await harness.slack.mention('C4312', 'これを読んで', { files: [file], user: 'UHUMAN02' });
    const answer = await waitFor(
      () =>
        harness.slack
          .thread('C4312', asked.ts)
          .find((message) => message.user === botUserId && message.text.includes('bomb.pdf')),
      30_000,
    );
    expect(answer.text).toMatch(/32 MB/);
    expect(JSON.stringify(harness.llm.requests.at(-1)?.body.messages)).not.toContain('AAAAAAAAAA');
  }, 60_000);
});
