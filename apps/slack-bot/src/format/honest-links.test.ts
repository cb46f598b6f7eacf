import { describe, expect, it } from 'vitest';
import { deceptiveLabel } from './honest-links.js';
import { SlackMarkdownStream } from './markdown-stream.js';
import { markdownToMrkdwn } from './slack-text.js';

/** What a stream sends of `text` given in pieces of `size` characters. */
function streamed(text: string, size = text.length): string {
  const stream = new SlackMarkdownStream();
  let sent = '';
  for (let start = 0; start < text.length; start += size)
    sent += stream.push(text.slice(start, start + size));
  return sent + stream.flush();
}

describe('links whose text lies about their target (hardening 27.6)', () => {
  it('a posted answer shows the target (before: <https://evil.example/phish|https://slack.com/signin>)', () => {
    expect(markdownToMrkdwn('[https://slack.com/signin](https://evil.example/phish)')).toBe(
      '<https://evil.example/phish>',
    );
    expect(markdownToMrkdwn('[**slack.com**](https://evil.example/)')).toBe('<https://evil.example/>');
    // The target itself shown in punycode: a look-alike host reads as what it is.
    expect(markdownToMrkdwn('[slack.com](https://slаck.com/)')).toBe('<https://xn--slck-63d.com/>');
    // Honest labels stay: words, or the same host.
    expect(markdownToMrkdwn('[the docs](https://docs.slack.dev/)')).toBe(
      '<https://docs.slack.dev/|the docs>',
    );
    expect(markdownToMrkdwn('[docs.slack.dev](https://docs.slack.dev/messaging)')).toBe(
      '<https://docs.slack.dev/messaging|docs.slack.dev>',
    );
  });

  it('a streamed answer too, whatever the chunks (before: sent unchanged in markdown_text)', () => {
    const text =
      'Sign in at [https://slack.com/signin](https://evil.example/phish) now, or [read](https://a.example/).';
    for (const size of [1, 3, 7, 1000])
      expect(streamed(text, size)).toBe(
        'Sign in at [https://evil.example/phish](https://evil.example/phish) now, or [read](https://a.example/).',
      );
  });

  it('#43.9 parens in the target, brackets in the label, a label over lines: read by the parser', () => {
    // Before: the three were sent unchanged (the stream matched links with a regular expression).
    for (const size of [1, 5, 12, 1000]) {
      expect(streamed('[https://slack.com/signin](https://evil.example/login_(x))', size)).toBe(
        '[https://evil.example/login\\_\\(x\\)](https://evil.example/login_%28x%29)',
      );
      expect(streamed('[https://okta.example.com/app [SSO]](https://evil.example/sso)', size)).toBe(
        '[https://evil.example/sso](https://evil.example/sso)',
      );
      expect(streamed('a [Sign in at\nslack.com](https://evil.example/x) b', size)).toBe(
        'a [https://evil.example/x](https://evil.example/x) b',
      );
    }
  });

  it('a reference definition is written as text in a stream, so [label][ref] cannot link unchecked', () => {
    const sent = streamed('Sign in at [https://slack.com][1]\n\n[1]: https://evil.example/\n');
    expect(sent).toContain('\\[1]: https://evil.example/');
    expect(sent).toContain('\\[https://slack.com]\\[1]');
    expect(markdownToMrkdwn('Sign in at [https://slack.com][1]\n\n[1]: https://evil.example/')).not.toContain(
      'evil.example/|',
    );
  });

  it('a link with a title or an angle-bracketed target is checked too', () => {
    // `<` reaches Slack as `&lt;`, so an angle-bracketed target is no URL Slack may link: it is text.
    expect(
      streamed('[slack.com](https://evil.example/ "Slack") and [slack.com](<https://evil.example/x>)'),
    ).toBe(
      '[https://evil.example/](https://evil.example/) and slack.com \\(&lt;https://evil.example/x&gt;\\)',
    );
  });

  it('a bracket that may still open a link is held until its block ends, then sent escaped', () => {
    const stream = new SlackMarkdownStream();
    // `[1]` followed by a space opens no link any more: sent at once, escaped.
    expect(stream.push('see [1] and [slack')).toBe('see \\[1] and ');
    // A label may go on over lines: the bracket is still held.
    expect(stream.push('.com\nnext')).toBe('');
    expect(stream.push('\n\nnew [')).toBe('\\[slack.com\nnext\n\nnew ');
    expect(stream.push('slack.com](https://evil.example/)')).toBe(
      '[https://evil.example/](https://evil.example/)',
    );
    expect(stream.flush()).toBe('');
    // In a list, a finished item lets its bracket go.
    const list = new SlackMarkdownStream();
    expect(list.push('- one [slack.com\n- two')).toBe('- one \\[slack.com\n- two');
    // A bracket held past the limit is let go as text: a later `](…)` cannot pair with it.
    const long = new SlackMarkdownStream();
    const sent =
      long.push(`[slack.com ${'x'.repeat(2100)}`) + long.push('](https://evil.example/)') + long.flush();
    expect(sent.startsWith('\\[slack.com x')).toBe(true);
    expect(sent).not.toContain('[https://evil.example/]');
  });

  it('a task box streams as a task box: `[ ]` opening a list item is held until the item says', () => {
    for (const size of [1, 3])
      expect(streamed('- [ ] todo\n- [x] done\n', size)).toBe('- [ ] todo\n- [x] done\n');
    expect(streamed('a [ ] b')).toBe('a \\[ ] b');
  });

  it('a bare URL grows as it arrives; images are written as links; text stays escaped for Slack', () => {
    expect(streamed('see https://docs.example/a_b?x=1&y=2 now', 4)).toBe(
      'see https://docs.example/a_b?x=1&amp;y=2 now',
    );
    expect(streamed('![slack.com](https://evil.example/i.png)', 3)).toBe(
      '[https://evil.example/i.png](https://evil.example/i.png)',
    );
    expect(streamed('<!channel> [x](https://ok.example/?a=<b>)')).toBe(
      '&lt;!channel&gt; x \\(https://ok.example/?a=&lt;b&gt;\\)',
    );
  });

  it('tells an address-like label from a word', () => {
    expect(deceptiveLabel('paypal.com', 'https://paypal.com.evil.example/')).toBe(true);
    expect(deceptiveLabel('www.example.com', 'https://example.com/x')).toBe(false);
    expect(deceptiveLabel('click here', 'https://evil.example/')).toBe(false);
    // Look-alikes: a trailing dot, an invisible character, another script, userinfo.
    expect(deceptiveLabel('slack.com.', 'https://evil.example/')).toBe(true);
    expect(deceptiveLabel('slack\u200b.com', 'https://evil.example/')).toBe(true);
    expect(deceptiveLabel('sl\u0430ck.com', 'https://slack.com/')).toBe(true);
    expect(deceptiveLabel('https://slack.com@evil.example/', 'https://evil.example/')).toBe(false);
    expect(deceptiveLabel('https://evil.example@slack.com/', 'https://evil.example/')).toBe(true);
    // A domain anywhere in the label, full-width forms and ideographic dots.
    expect(deceptiveLabel('Sign in at slack.com', 'https://evil.example/')).toBe(true);
    expect(deceptiveLabel('[slack.com]', 'https://evil.example/')).toBe(true);
    expect(deceptiveLabel('slack。com', 'https://evil.example/')).toBe(true);
    expect(deceptiveLabel('ｓｌａｃｋ．ｃｏｍ', 'https://evil.example/')).toBe(true);
    expect(deceptiveLabel('version 1.5 notes', 'https://docs.example/')).toBe(false);
    expect(deceptiveLabel('Read docs.example for more', 'https://docs.example/guide')).toBe(false);
  });
});
