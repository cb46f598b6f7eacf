import { describe, expect, it } from 'vitest';
import { deceptiveLabel, HonestLinkStream } from './honest-links.js';
import { markdownToMrkdwn } from './slack-text.js';

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
    for (const size of [1, 3, 7, 1000]) {
      const stream = new HonestLinkStream();
      let sent = '';
      for (let start = 0; start < text.length; start += size)
        sent += stream.push(text.slice(start, start + size));
      sent += stream.flush();
      expect(sent).toBe(
        'Sign in at [https://evil.example/phish](https://evil.example/phish) now, or [read](https://a.example/).',
      );
    }
  });

  it('a reference definition is written as text in a stream, so [label][ref] cannot link unchecked', () => {
    const stream = new HonestLinkStream();
    const sent =
      stream.push('Sign in at [https://slack.com][1]\n\n[1]: https://evil.example/\n') + stream.flush();
    expect(sent).toContain('\\[1\\]: https://evil.example/');
    expect(markdownToMrkdwn('Sign in at [https://slack.com][1]\n\n[1]: https://evil.example/')).not.toContain(
      'evil.example/|',
    );
  });

  it('a link with a title or an angle-bracketed target is checked too', () => {
    const stream = new HonestLinkStream();
    const sent =
      stream.push('[slack.com](https://evil.example/ "Slack") and [slack.com](<https://evil.example/x>)') +
      stream.flush();
    expect(sent).toBe(
      '[https://evil.example/](https://evil.example/) and [https://evil.example/x](https://evil.example/x)',
    );
  });

  it('an open bracket that never becomes a link is let through at the end of its line', () => {
    const stream = new HonestLinkStream();
    expect(stream.push('see [1] and ')).toBe('see ');
    expect(stream.push('more\nnext')).toBe('[1] and more\nnext');
    expect(stream.flush()).toBe('');
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
