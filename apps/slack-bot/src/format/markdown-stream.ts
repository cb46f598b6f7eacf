import type { Image, Link, Nodes, Root } from 'mdast';
import { escapeSlackText, parseMarkdown, plainText, showLink } from './slack-text.js';

/** The longest the text after a `[` that may still open a link is held before the `[` is sent as text. */
const holdLimit = 2000;

/** Up to this length the open block is read again on every piece. */
const readAtOnce = 4000;

/** Markdown that reads as `text` and can open no link, image or format: its punctuation escaped. */
function markdownText(text: string): string {
  return escapeSlackText(text.replace(/\s*\n\s*/g, ' ').replace(/[\\`*_~[\]()!|#]/g, '\\$&'));
}

/** A link destination that no `(`, `)` or space can end early; `&` as Slack's entity. */
function destination(url: string): string {
  const encoded = url.replace(/\(/g, '%28').replace(/\)/g, '%29');
  return escapeSlackText(encoded.replace(/\s/g, (space) => encodeURIComponent(space)));
}

/** A link or image of the parsed text, written anew as `showLink` decides (an image as a link). */
function writeLink(node: Link | Image): string {
  const label = node.type === 'image' ? (node.alt ?? '') : plainText(node);
  const shown = showLink(node.url, label);
  if (shown.as === 'text') return markdownText(label ? `${label} (${node.url})` : node.url);
  const text = shown.as === 'labelled' && label.trim() ? label : shown.url;
  return `[${markdownText(text)}](${destination(shown.url)})`;
}

const offset = (node: Nodes, end = false) =>
  (end ? node.position?.end.offset : node.position?.start.offset) ?? 0;

/** The `[`s of a text that opened no link: all of them, and those a later `](…)` may still close. */
interface Brackets {
  all: number[];
  live: number[];
}

/**
 * The text's brackets, matched as CommonMark matches them within one paragraph, heading or table cell
 * (the parser has already taken out code spans, escapes and links): a `[` closed by a `]` that is
 * followed by something other than `(` opens no link any more, nor does a `[` before a link.
 */
function brackets(source: string, tree: Root): Brackets {
  const found: Brackets = { all: [], live: [] };
  const inline = (context: Nodes, firstInItem: boolean) => {
    const openers: Array<{ at: number; active: boolean; image: boolean }> = [];
    // `[ ]` or `[x]` opening a list item's text may still become its task box.
    const taskBox =
      firstInItem && /^\[[ xX]\]\s*$/.test(source.slice(offset(context), offset(context, true)));
    if (taskBox) found.live.push(offset(context));
    const visit = (node: Nodes) => {
      if (node.type === 'link') for (const opener of openers) opener.active &&= opener.image;
      if (node.type === 'text') {
        const start = offset(node);
        const text = source.slice(start, offset(node, true));
        for (let index = 0; index < text.length; index++) {
          if (text[index] === '\\') index++;
          else if (text[index] === '[') {
            found.all.push(start + index);
            const image = index > 0 && text[index - 1] === '!' && text[index - 2] !== '\\';
            openers.push({ at: start + index, active: true, image });
          } else if (text[index] === ']') {
            const opener = openers.pop();
            const next = source[start + index + 1];
            if (opener?.active && (next === undefined || next === '(')) found.live.push(opener.at);
          }
        }
      } else if ('children' in node && node.type !== 'link') for (const child of node.children) visit(child);
    };
    for (const child of 'children' in context ? context.children : []) visit(child);
    for (const opener of openers) if (opener.active) found.live.push(opener.at);
  };
  const blocks = (node: Nodes, firstInItem = false) => {
    if (node.type === 'paragraph' || node.type === 'heading' || node.type === 'tableCell')
      inline(node, firstInItem);
    else if ('children' in node)
      for (const [index, child] of node.children.entries())
        blocks(child, node.type === 'listItem' && index === 0);
  };
  blocks(tree);
  found.all.sort((a, b) => a - b);
  found.live.sort((a, b) => a - b);
  return found;
}

/** Links, images and (footnote) definitions, in order. */
function linksAndDefinitions(node: Nodes, found: Nodes[]): Nodes[] {
  if (['link', 'image', 'definition', 'footnoteDefinition'].includes(node.type)) found.push(node);
  else if ('children' in node) for (const child of node.children) linksAndDefinitions(child, found);
  return found;
}

/** The block that may still grow: the last one, and inside a list, quote or table its last part. */
function lastLeaf(tree: Root): Nodes | undefined {
  let node: Nodes | undefined = tree.children.at(-1);
  while (node && ['list', 'listItem', 'blockquote', 'table', 'footnoteDefinition'].includes(node.type))
    node = 'children' in node ? node.children.at(-1) : undefined;
  return node;
}

/**
 * Streams a model's Markdown to Slack's `markdown_text`, read by the same parser as a posted answer
 * (`parseMarkdown`): every piece is escaped (`escapeSlackText`); every link is written anew as
 * `showLink` decides, so its text cannot lie about its target; every other `[` is sent escaped, so no
 * later `](…)` can pair with it; definitions are sent as text, so no `[label][ref]` links unchecked.
 * Text from a `[` that a later `](…)` may still close is held until it is closed, its block ends, or
 * it grows past a limit; what was sent is never changed by what follows.
 */
export class SlackMarkdownStream {
  /** The escaped text from the line where the last top-level block starts (what may still change). */
  private pending = '';
  /** How much of `pending` was sent. */
  private sent = 0;
  /** How much arrived since `pending` was last read. */
  private unread = 0;

  /** Takes the next piece of the model's text; returns what can be sent now. */
  push(text: string): string {
    this.pending += escapeSlackText(text);
    this.unread += text.length;
    // A long block is read again only once it grew by a quarter: all its reads together cost about
    // five reads of the whole, however small the pieces.
    if (this.pending.length > readAtOnce && this.unread * 4 < this.pending.length) return '';
    return this.release(false);
  }

  /** The rest, at the end of the answer. */
  flush(): string {
    return this.release(true);
  }

  private release(end: boolean): string {
    this.unread = 0;
    for (;;) {
      const tree = parseMarkdown(this.pending, { placed: true });
      const nodes = linksAndDefinitions(tree, []);
      // A definition is sent with its `[` escaped: Slack then sees text, and links nothing to it.
      const definitions = nodes
        .filter((node) => node.type === 'definition' || node.type === 'footnoteDefinition')
        .map((node) => this.pending.indexOf('[', offset(node)))
        .filter((index) => index >= this.sent);
      if (definitions.length) {
        this.escape(definitions);
        continue;
      }
      const found = brackets(this.pending, tree);
      let cut = this.pending.length;
      if (!end) {
        const leaf = lastLeaf(tree);
        const open = found.live.filter((index) => index >= Math.max(this.sent, this.lineOf(leaf)));
        const tooLong = open.filter((index) => this.pending.length - index > holdLimit);
        if (tooLong.length) {
          this.escape(tooLong);
          continue;
        }
        const first = open[0];
        // A `!` before it may make an image of it: held with it.
        if (first !== undefined)
          cut = first > this.sent && this.pending[first - 1] === '!' ? first - 1 : first;
      }
      const out = this.write(nodes, found.all, cut);
      const settled = end ? this.pending.length : this.lineOf(tree.children.at(-1));
      this.pending = this.pending.slice(settled);
      this.sent = cut - settled;
      return out;
    }
  }

  /**
   * `pending` from what was sent up to `cut`: each link written anew, and each `[` that opened none
   * escaped, so no renderer can pair it with a `]` that comes later.
   */
  private write(nodes: Nodes[], openers: number[], cut: number): string {
    const edits: Array<{ from: number; to: number; text: string }> = [];
    for (const node of nodes) {
      if (node.type !== 'link' && node.type !== 'image') continue;
      const [from, to] = [offset(node), offset(node, true)];
      if (from < this.sent || to > cut) continue;
      const source = this.pending.slice(from, to);
      // A bare URL (a GFM autolink) shows its own target; it is left to grow, its brackets encoded.
      const bare = !/^!?\[/.test(source);
      edits.push({ from, to, text: bare ? source.replace(/[[\]]/g, encodeURIComponent) : writeLink(node) });
    }
    for (const index of openers)
      if (index >= this.sent && index < cut) edits.push({ from: index, to: index, text: '\\' });
    edits.sort((a, b) => a.from - b.from);
    let out = '';
    let from = this.sent;
    for (const edit of edits) {
      out += this.pending.slice(from, edit.from) + edit.text;
      from = edit.to;
    }
    return out + this.pending.slice(from, cut);
  }

  /** Where the line a block starts on begins (`pending`'s end when there is no block). */
  private lineOf(node: Nodes | undefined): number {
    if (!node) return this.pending.length;
    return this.pending.lastIndexOf('\n', offset(node) - 1) + 1;
  }

  /** Escapes the `[`s at these places of `pending` (not yet sent): they become text. */
  private escape(places: number[]): void {
    for (const index of [...places].sort((a, b) => b - a))
      this.pending = `${this.pending.slice(0, index)}\\${this.pending.slice(index)}`;
  }
}
