import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { botUserId, completion, type FakeRequest } from '@ai-assistant/test-kit';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, waitFor } from './harness.js';

// A real 1×1 PNG.
const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

async function pdfWith(lines: string[]): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const page = pdf.addPage([595, 842]);
  lines.forEach((line, index) => {
    page.drawText(line, { x: 50, y: 780 - index * 20, size: 12, font });
  });
  return Buffer.from(await pdf.save());
}

type Part = { type: string; text?: string; image_url?: { url: string } };
type Sent = { role: string; content: string | Part[] | null };

/** The question as the model received it: its last user message. */
function questionOf(request: FakeRequest): Sent | undefined {
  return ((request.body.messages ?? []) as Sent[]).filter((message) => message.role === 'user').at(-1);
}

function textOf(message: Sent | undefined): string {
  if (!message) return '';
  if (typeof message.content === 'string') return message.content;
  return (message.content ?? []).map((part) => part.text ?? '').join('\n');
}

describe('files people attach reach the model (issue 30: files in)', () => {
  let harness: Harness;
  const channel = 'C0FILES';
  beforeAll(async () => {
    harness = await startHarness({ vision: true });
    harness.llm.respondWith((request) =>
      completion(request, { text: `受け取りました: ${textOf(questionOf(request)).slice(0, 300)}` }),
    );
  }, 60_000);
  afterAll(async () => {
    await harness?.close();
  });

  /** Mentions the bot with files and returns the model's request and the posted answer. */
  const ask = async (text: string, files: ReturnType<Harness['slack']['attach']>[]) => {
    const before = harness.llm.requests.length;
    const { ts } = await harness.slack.mention(channel, text, { files });
    const answer = await waitFor(
      () =>
        harness.slack
          .thread(channel, ts)
          .find(
            (message) =>
              message.user === botUserId && !message.streaming && message.text.startsWith('受け取りました'),
          ),
      15_000,
    );
    return { request: harness.llm.requests[before] as FakeRequest, answer: answer.text };
  };

  it('an attached PNG reaches a vision model as an image part, with the question', async () => {
    const file = harness.slack.attach({ name: 'photo.png', mimetype: 'image/png', bytes: png });
    const { request } = await ask('この画像は何？', [file]);
    const question = questionOf(request);
    expect(question?.content).toEqual([
      { type: 'text', text: 'この画像は何？' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
    ]);
    // Downloaded once, with the workspace's token.
    expect(harness.slack.downloads.filter((entry) => entry.id === file.id)).toEqual([
      { id: file.id, served: true },
    ]);
  }, 30_000);

  it('a PDF’s text reaches the model inside an attachment element; a text file too', async () => {
    const pdf = harness.slack.attach({
      name: 'budget.pdf',
      mimetype: 'application/pdf',
      bytes: await pdfWith(['Quarterly budget', 'The budget for Q3 is 3,000,000 yen.']),
    });
    const notes = harness.slack.attach({
      name: 'notes.txt',
      mimetype: 'text/plain',
      bytes: Buffer.from('会議は木曜 15 時です。\n'),
    });
    const { request } = await ask('予算はいくら？', [pdf, notes]);
    const text = textOf(questionOf(request));
    expect(text).toMatch(/^予算はいくら？/);
    expect(text).toContain('<attachment name="budget.pdf">');
    expect(text).toContain('The budget for Q3 is 3,000,000 yen.');
    expect(text).toContain('<attachment name="notes.txt">');
    expect(text).toContain('会議は木曜 15 時です。');
  }, 30_000);

  it('a 50 MB file is refused politely without downloading it; an unsupported kind is named; the question is answered', async () => {
    const big = harness.slack.attach({
      name: 'scan.pdf',
      mimetype: 'application/pdf',
      bytes: Buffer.from('%PDF-1.4 small stand-in'),
      size: 50 * 1024 * 1024,
    });
    const zip = harness.slack.attach({
      name: 'archive.zip',
      mimetype: 'application/zip',
      bytes: Buffer.from('PK'),
    });
    const { request, answer } = await ask('これを要約して', [big, zip]);
    expect(textOf(questionOf(request))).toBe('これを要約して');
    expect(answer).toContain('scan.pdf: 50.0 MB は大きすぎるため読みませんでした（上限 20.0 MB）');
    expect(answer).toContain('archive.zip: この種類のファイル（zip）は読めません');
    expect(harness.slack.downloads.some((entry) => entry.id === big.id || entry.id === zip.id)).toBe(false);
  }, 30_000);

  it('as an attacker: a file whose address is not Slack’s is never fetched, so the bot token goes nowhere', async () => {
    const seen: Array<string | undefined> = [];
    const trap = createServer((request, response) => {
      seen.push(request.headers.authorization);
      response.writeHead(200, { 'content-type': 'image/png' }).end(png);
    });
    await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = trap.address() as AddressInfo;
      const real = harness.slack.attach({ name: 'x.png', mimetype: 'image/png', bytes: png });
      const forged = { ...real, url_private_download: `http://127.0.0.1:${port}/steal.png` };
      const { request, answer } = await ask('見て', [forged]);
      expect(seen).toEqual([]);
      expect(questionOf(request)?.content).toBe('見て');
      expect(answer).toContain('x.png: 読めませんでした（Slack のファイル置き場のものではありません）');
    } finally {
      trap.close();
    }
  }, 30_000);

  it('a file Slack will not hand over (a sign-in redirect) and a PNG that is not one are named, not crashed on', async () => {
    const fake = harness.slack.attach({
      name: 'fake.png',
      mimetype: 'image/png',
      bytes: Buffer.from('<html>'),
    });
    const otherTeam = { ...harness.slack.attach({ name: 'other.png', mimetype: 'image/png', bytes: png }) };
    otherTeam.url_private_download = otherTeam.url_private_download.replace('/T0001-', '/T0999-');
    const { answer } = await ask('どう？', [fake, otherTeam]);
    expect(answer).toContain('fake.png: 読めませんでした（中身が image/png の画像ではありません）');
    expect(answer).toContain('other.png: 読めませんでした（Slack がファイルを渡しませんでした');
  }, 30_000);

  it('a direct message of files alone (file_share, no text) is answered about the files', async () => {
    const notes = harness.slack.attach({
      name: 'memo.md',
      mimetype: 'text/markdown',
      bytes: Buffer.from('# メモ\n締切は金曜'),
    });
    const ts = harness.slack.say('D0FILES', '', {});
    const before = harness.llm.requests.length;
    await harness.slack.push({
      type: 'message',
      subtype: 'file_share',
      channel: 'D0FILES',
      channel_type: 'im',
      user: 'UHUMAN01',
      text: '',
      files: [notes],
      upload: false,
      ts,
      event_ts: ts,
    });
    await waitFor(
      () =>
        harness.slack
          .thread('D0FILES', ts)
          .find(
            (message) =>
              message.user === botUserId && !message.streaming && message.text.startsWith('受け取りました'),
          ),
      15_000,
    );
    const text = textOf(questionOf(harness.llm.requests[before] as FakeRequest));
    expect(text).toContain('（ファイルを添付しました）');
    expect(text).toContain('締切は金曜');
  }, 30_000);
});
