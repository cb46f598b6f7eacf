import { completion, streamedText } from '@ai-assistant/test-kit';
import type { Link, Nodes } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness, waitFor } from './harness.js';

// Links a CommonMark renderer (as Slack's for `markdown_text`) makes of the streamed text, whose label
// names a place the link does not go to.
const lies = [
  '[https://slack.com/signin](https://evil.example/login_(x))',
  '[https://okta.example.com/app [SSO]](https://evil.example/sso)',
  'Sign in at [https://slack.com\n/signin](https://evil.example/two-lines) today.',
  '[Sign in at\nslack.com](https://evil.example/label-over-lines)',
];

function links(node: Nodes): Link[] {
  const own = node.type === 'link' ? [node] : [];
  return [...own, ...('children' in node ? node.children.flatMap((child) => links(child)) : [])];
}
const plain = (node: Nodes): string =>
  'value' in node && typeof node.value === 'string'
    ? node.value
    : 'children' in node
      ? node.children.map((child) => plain(child)).join('')
      : '';

/** Every link of the rendered Markdown that goes to evil.example while its label names another host. */
function lyingLinks(markdown: string): string[] {
  const tree = fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  return links(tree)
    .filter((link) => /evil\.example/.test(link.url) && /slack\.com|okta\.example\.com/.test(plain(link)))
    .map((link) => `[${plain(link)}](${link.url})`);
}

describe('#43.9 streamed answers show no link whose text lies about its target', () => {
  let harness: Harness;
  afterEach(() => harness?.close());

  it('#43.9 parens in the URL, brackets in the label, a label over two lines: chat.appendStream carries none', async () => {
    harness = await startHarness({ env: { SLACK_STREAMING: 'true' } });
    harness.llm.respondWith((request) => completion(request, { text: lies.join('\n\n') }));
    await harness.slack.mention('C409', 'hello');
    await waitFor(() => harness.slack.callsOf('chat.stopStream').length > 0);
    const streamed = harness.slack.calls
      .filter((call) => /^chat\.(startStream|appendStream|stopStream)$/.test(call.method))
      .map((call) => streamedText(call.args))
      .join('');
    // The fake model streams 12 characters at a time, so each link arrives in pieces.
    expect(lyingLinks(streamed)).toEqual([]);
    // The targets are shown instead, and the text around them is kept.
    expect(streamed).toContain('evil.example/login_%28x%29');
    expect(streamed).toContain('evil.example/sso');
    expect(streamed).toContain('today.');
    // The judge finds all four in the model's own text.
    expect(lyingLinks(lies.join('\n\n'))).toHaveLength(lies.length);
  });
});
