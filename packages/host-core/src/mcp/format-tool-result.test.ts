import { describe, expect, it } from 'vitest';
import { filesOf, formatToolResult, truncateMiddle } from './format-tool-result.js';

describe('tool results as the model reads them', () => {
  it('joins text blocks and keeps isError', () => {
    expect(
      formatToolResult({
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
        isError: true,
      }),
    ).toEqual({ text: 'a\nb', isError: true });
  });

  it('describes images, audio, links and embedded resources instead of dropping them', () => {
    const { text } = formatToolResult({
      content: [
        { type: 'image', mimeType: 'image/png', data: 'AAAA' },
        { type: 'audio', mimeType: 'audio/wav', data: 'AAAAAA==' },
        { type: 'resource_link', uri: 'file:///a.txt', name: 'a', mimeType: 'text/plain' },
        { type: 'resource', resource: { uri: 'file:///b.txt', text: 'inline text' } },
        { type: 'resource', resource: { uri: 'file:///c.bin', mimeType: 'application/zip', blob: 'AAAA' } },
      ],
    });
    expect(text.split('\n')).toEqual([
      '[image: image/png, 3 bytes]',
      '[audio: audio/wav, 4 bytes]',
      '[resource link: file:///a.txt (a), text/plain]',
      'inline text',
      '[resource: file:///c.bin, application/zip, 3 bytes]',
    ]);
  });

  it('uses structuredContent when there is no text', () => {
    expect(formatToolResult({ content: [], structuredContent: { t: 1 } }).text).toBe('{\n  "t": 1\n}');
    expect(
      formatToolResult({ content: [{ type: 'text', text: 'x' }], structuredContent: { t: 1 } }).text,
    ).toBe('x');
    expect(formatToolResult({}).text).toBe('(the tool returned no content)');
    expect(formatToolResult({ toolResult: { legacy: true } }).text).toBe('{\n  "legacy": true\n}');
  });

  it('an image in content and in structuredContent (server-filesystem read_media_file) is described once, never as base64', () => {
    const data = Buffer.alloc(60_000, 7).toString('base64');
    const text = formatToolResult({
      content: [{ type: 'image', mimeType: 'image/png', data }],
      structuredContent: { content: [{ type: 'image', mimeType: 'image/png', data }] },
    }).text;
    // Before: the description followed by 80 000 characters of the structured JSON's base64.
    expect(text).toBe('[image: image/png, 60000 bytes]');
  });

  it('decodes textual blobs (text/*, JSON, XML, +json) and describes the rest', () => {
    const blob = (text: string) => Buffer.from(text, 'utf8').toString('base64');
    const resource = (mimeType: string, value: string) => ({
      type: 'resource',
      resource: { uri: 'file:///x', mimeType, blob: value },
    });
    const text = formatToolResult({
      content: [
        resource('text/csv', blob('a,b\n1,2')),
        resource('application/json; charset=utf-8', blob('{"天気":"晴れ"}')),
        resource('application/vnd.api+json', blob('{"ok":true}')),
        resource('text/plain', Buffer.from([0xff, 0xfe, 0x00]).toString('base64')),
        resource('application/octet-stream', blob('raw')),
      ],
    }).text.split('\n');
    expect(text).toEqual([
      'a,b',
      '1,2',
      '{"天気":"晴れ"}',
      '{"ok":true}',
      '[resource: file:///x, text/plain, 3 bytes]',
      '[resource: file:///x, application/octet-stream, 3 bytes]',
    ]);
  });

  it('cuts the middle of long output and says how much', () => {
    const cut = truncateMiddle(`start${'-'.repeat(1000)}end`, 200);
    expect(cut.length).toBeLessThanOrEqual(200);
    expect(cut.startsWith('start')).toBe(true);
    expect(cut.endsWith('end')).toBe(true);
    expect(cut).toMatch(/\d+ characters cut of 1008/);
    expect(truncateMiddle('short', 200)).toBe('short');
  });
});

describe('files a tool returns, for the thread (issue 30: files out)', () => {
  it('embedded blobs become named files; text resources, bad base64 and files over the cap do not', () => {
    const pdf = Buffer.from('%PDF-1.4 report').toString('base64');
    const files = filesOf({
      content: [
        {
          type: 'resource',
          resource: { uri: 'reports://q3/report%20final.pdf', mimeType: 'application/pdf', blob: pdf },
        },
        {
          type: 'resource',
          resource: {
            uri: 'demo://resource/dynamic/blob/2',
            mimeType: 'text/plain',
            blob: 'UmVzb3VyY2UgMg==',
          },
        },
        {
          type: 'resource',
          resource: { uri: 'file:///../../etc/passwd', mimeType: 'text/plain', blob: 'cm9vdA==' },
        },
        { type: 'resource', resource: { uri: 'notes://a', mimeType: 'text/plain', text: 'just text' } },
        { type: 'resource', resource: { uri: 'bad://x', mimeType: 'application/pdf', blob: 'not base64!' } },
        {
          type: 'resource',
          resource: {
            uri: 'big://x',
            mimeType: 'application/pdf',
            blob: 'A'.repeat((11 * 1024 * 1024 * 4) / 3),
          },
        },
      ],
    });
    expect(files).toEqual([
      { name: 'report_final.pdf', mimeType: 'application/pdf', data: pdf },
      { name: '2.txt', mimeType: 'text/plain', data: 'UmVzb3VyY2UgMg==' },
      { name: 'passwd.txt', mimeType: 'text/plain', data: 'cm9vdA==' },
    ]);
  });
});
