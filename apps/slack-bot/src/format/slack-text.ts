import type { Nodes, Parents, Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import { deceptiveLabel, shownTarget } from './honest-links.js';

// Text from a model or a tool is data. Slack parses `<…>` (mentions, `<!channel>`, links) and `&` entities
// in every text field, code included, so every piece of such text passes through escapeSlackText, and
// the only `<…>` this module writes is a link whose URL it checked.

/** Escapes `&`, `<` and `>` so Slack shows the text as written and parses nothing in it. */
export function escapeSlackText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Escaped text cut to Slack's `limit`, never in the middle of an `&amp;`-style entity. */
export function clipEscaped(text: string, limit: number): string {
  return text.length <= limit ? text : text.slice(0, limit).replace(/&[a-z]*$/, '');
}

/** A URL Slack may link: http(s), with nothing that could end or split `<url|label>`. */
function linkable(url: string): boolean {
  return /^https?:\/\/[^\s<>|]+$/i.test(url);
}

/** Every text a node holds, unformatted: what a person reads as a link's label. */
export function plainText(node: Nodes): string {
  if ('value' in node && typeof node.value === 'string') return node.value;
  return 'children' in node ? node.children.map((child) => plainText(child)).join('') : '';
}

/**
 * How a link of untrusted text may be shown, whatever the syntax it is written in: as text (not an
 * http(s) URL Slack may link), by its target alone (its label reads as another address:
 * "https://slack.com/signin" → evil.example), or with its label.
 */
export type ShownLink = { as: 'text' } | { as: 'target'; url: string } | { as: 'labelled'; url: string };

/** Decides how a link whose label reads `plainLabel` is shown (see `ShownLink`). */
export function showLink(url: string, plainLabel: string): ShownLink {
  if (!linkable(url)) return { as: 'text' };
  if (deceptiveLabel(plainLabel, url)) return { as: 'target', url: shownTarget(url) };
  return { as: 'labelled', url };
}

function link(url: string, label: string, plainLabel: string): string {
  const shown = showLink(url, plainLabel);
  if (shown.as === 'text') return label ? `${label} (${escapeSlackText(url)})` : escapeSlackText(url);
  const target = escapeSlackText(shown.url);
  return shown.as === 'labelled' && label && label !== target ? `<${target}|${label}>` : `<${target}>`;
}

function inline(node: Nodes): string {
  switch (node.type) {
    case 'text':
      return escapeSlackText(node.value);
    case 'inlineCode':
      return `\`${escapeSlackText(node.value)}\``;
    case 'strong':
      return `*${children(node)}*`;
    case 'emphasis':
      return `_${children(node)}_`;
    case 'delete':
      return `~${children(node)}~`;
    case 'break':
      return '\n';
    case 'link':
      return link(node.url, children(node), plainText(node));
    case 'image':
      return link(node.url, escapeSlackText(node.alt ?? ''), node.alt ?? '');
    case 'html':
      return escapeSlackText(node.value);
    case 'footnoteReference':
      return `[${escapeSlackText(node.label ?? node.identifier)}]`;
    default:
      return 'children' in node ? children(node) : 'value' in node ? escapeSlackText(String(node.value)) : '';
  }
}

function children(node: Parents): string {
  return node.children.map((child) => inline(child)).join('');
}

const indentLines = (text: string, prefix: string) =>
  text
    .split('\n')
    .map((line) => (line ? `${prefix}${line}` : line))
    .join('\n');

function block(node: Nodes, depth: number): string {
  switch (node.type) {
    case 'root':
      return blocks(node.children, depth);
    case 'paragraph':
      return children(node);
    case 'heading':
      return `*${children(node).replace(/^\*(.*)\*$/s, '$1')}*`;
    case 'code':
      // Slack ignores a language tag; it is dropped so it is not shown as code.
      return `\`\`\`\n${escapeSlackText(node.value)}\n\`\`\``;
    case 'blockquote':
      return indentLines(blocks(node.children, depth), '> ');
    case 'thematicBreak':
      return '──────────';
    case 'list':
      return node.children
        .map((item, index) => {
          const marker = node.ordered ? `${(node.start ?? 1) + index}.` : '•';
          const body = item.children.map((child) => block(child, depth + 1)).join('\n');
          const [first = '', ...rest] = body.split('\n');
          const check = item.checked === true ? '☑ ' : item.checked === false ? '☐ ' : '';
          return [`${marker} ${check}${first}`, ...rest.map((line) => (line ? `  ${line}` : line))].join(
            '\n',
          );
        })
        .join('\n');
    case 'table':
      return node.children.map((row) => row.children.map((cell) => children(cell)).join(' | ')).join('\n');
    case 'html':
      return escapeSlackText(node.value);
    case 'definition':
      return '';
    default:
      return inline(node);
  }
}

function blocks(nodes: Nodes[], depth: number): string {
  return nodes
    .map((node) => block(node, depth))
    .filter((text) => text !== '')
    .join('\n\n');
}

/**
 * Converts a model's Markdown to Slack mrkdwn with a real Markdown parser (GFM: tables, strikethrough,
 * autolinks). Every text node is escaped, code included; links are kept only for http(s) URLs without
 * `<`, `>` or `|`. The result can never contain `<!…>` or `<@…>`.
 */
export function markdownToMrkdwn(markdown: string): string {
  return block(parseMarkdown(markdown), 0);
}

/**
 * The one Markdown parser for untrusted text (CommonMark with GFM): posted and streamed answers alike.
 * `placed` skips GFM's second pass that finds more bare URLs inside text: its links carry no place in
 * the source, and a stream, which rewrites the source by place, leaves bare URLs as they are anyway.
 */
export function parseMarkdown(markdown: string, options: { placed?: boolean } = {}): Root {
  const mdastExtensions = options.placed
    ? gfmFromMarkdown().map(({ transforms: _secondPass, ...extension }) => extension)
    : gfmFromMarkdown();
  return fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions });
}
