import { describe, expect, it } from 'vitest';
import { splitPassages } from './documents.js';
import { tokenize } from './tokenize.js';

describe('tokenize', () => {
  it('words for Latin script, bigrams for Japanese, width and case folded', () => {
    expect(tokenize('Deploy the Slack-bot v2')).toEqual(['deploy', 'the', 'slack', 'bot', 'v2']);
    expect(tokenize('傘が必要')).toEqual(['傘が', 'が必', '必要']);
    expect(tokenize('ＭＣＰサーバー')).toEqual(['mcp', 'サー', 'ーバ', 'バー']);
    expect(tokenize('雨')).toEqual(['雨']);
  });
});

describe('splitPassages', () => {
  it('splits at headings with the heading path, ignoring # inside code, and long sections at paragraphs', () => {
    const long = Array.from({ length: 8 }, (_, index) => `Paragraph ${index} ${'x'.repeat(300)}`).join(
      '\n\n',
    );
    const passages = splitPassages(
      {
        id: 'doc',
        title: 'Guide',
        text: `# Guide\nIntro\n## Setup\n\`\`\`sh\n# not a heading\n\`\`\`\n### Slack\nTokens\n## Long\n${long}`,
      },
      true,
    );
    expect(passages.slice(0, 3).map((passage) => [passage.heading, passage.text])).toEqual([
      ['Guide', 'Intro'],
      ['Guide › Setup', '```sh\n# not a heading\n```'],
      ['Guide › Setup › Slack', 'Tokens'],
    ]);
    const longParts = passages.filter((passage) => passage.heading === 'Guide › Long');
    expect(longParts.length).toBeGreaterThan(1);
    expect(longParts.every((passage) => passage.text.length <= 1300)).toBe(true);
    expect(passages.every((passage, index) => passage.id === `doc#${index}`)).toBe(true);
  });
});
