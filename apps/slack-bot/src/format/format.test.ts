import { describe, expect, it } from 'vitest';
import { markdownToMrkdwn } from './slack-text.js';
import { splitMessage } from './split-message.js';

// Shaped like what GPT-4o and Claude answer to weather questions.
const answer = `## 東京の天気（3月12日）

**今日**は晴れ時々くもりで、*最高気温は13°C*です。

- 降水確率: 06-12時 0% / 12-18時 0%
- 傘は**不要**です
  * 夜も崩れません

詳しくは[気象庁のページ](https://www.jma.go.jp/bosai/forecast/)をご覧ください。~~雨~~は降りません。

\`\`\`python
# code is left alone: **not bold**, [not](a link)
print("a < b && c > d")
\`\`\`

Use \`get_weather(**kwargs)\` for details & more.`;

describe('Markdown → Slack mrkdwn', () => {
  it('converts headings, bold, italic, lists, links and strikethrough; code stays unformatted (escaped, as Slack shows it)', () => {
    expect(markdownToMrkdwn(answer)).toBe(`*東京の天気（3月12日）*

*今日*は晴れ時々くもりで、_最高気温は13°C_です。

• 降水確率: 06-12時 0% / 12-18時 0%
• 傘は*不要*です
  • 夜も崩れません

詳しくは<https://www.jma.go.jp/bosai/forecast/|気象庁のページ>をご覧ください。~雨~は降りません。

\`\`\`
# code is left alone: **not bold**, [not](a link)
print("a &lt; b &amp;&amp; c &gt; d")
\`\`\`

Use \`get_weather(**kwargs)\` for details &amp; more.`);
  });

  it('escapes Slack control characters outside code and keeps snake_case names', () => {
    expect(markdownToMrkdwn('a < b > c & <@U123>')).toBe('a &lt; b &gt; c &amp; &lt;@U123&gt;');
    expect(markdownToMrkdwn('mcp__weather__get_weather works')).toBe('mcp__weather__get_weather works');
  });
});

describe('splitting long answers', () => {
  it('keeps short answers whole', () => {
    expect(splitMessage('短い回答', 100)).toEqual(['短い回答']);
  });

  it('splits at paragraph boundaries within the limit', () => {
    const paragraphs = Array.from({ length: 6 }, (_, index) => `段落${index}。${'あ'.repeat(40)}`);
    const parts = splitMessage(paragraphs.join('\n\n'), 120);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.every((part) => part.length <= 120)).toBe(true);
    expect(parts.join('\n\n')).toBe(paragraphs.join('\n\n'));
  });

  it('never cuts inside a code block; a too-long block is closed and reopened', () => {
    const code = `\`\`\`\n${Array.from({ length: 30 }, (_, index) => `line ${index}`).join('\n')}\n\`\`\``;
    const parts = splitMessage(`intro\n\n${code}\n\noutro`, 100);
    expect(parts.every((part) => part.length <= 100)).toBe(true);
    for (const part of parts) expect((part.match(/```/g) ?? []).length % 2).toBe(0);
    expect(parts.join('\n')).toContain('line 29');
  });
});
