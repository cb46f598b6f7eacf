import { describe, expect, it } from 'vitest';
import { formatToolResult, truncateMiddle } from './format-tool-result.js';

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

  it('cuts the middle of long output and says how much', () => {
    const cut = truncateMiddle(`start${'-'.repeat(1000)}end`, 200);
    expect(cut.length).toBeLessThanOrEqual(200);
    expect(cut.startsWith('start')).toBe(true);
    expect(cut.endsWith('end')).toBe(true);
    expect(cut).toMatch(/\d+ characters cut of 1008/);
    expect(truncateMiddle('short', 200)).toBe('short');
  });
});
