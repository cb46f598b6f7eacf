/**
 * An address or domain anywhere in a label ("https://slack.com/signin", "Sign in at slack.com", "slаck.com"
 * with a Cyrillic а): any letters, so a look-alike in another script counts as one too.
 */
const addressInText =
  /(?:[a-z][a-z0-9+.-]*:\/\/)?(?:[^\s/@]*@)?(?:www\.)?((?:[\p{L}\p{N}-]+\.)+[\p{L}][\p{L}\p{N}-]*)/giu;
/** Characters that show as nothing: they can split a domain without changing how it reads. */
const invisible = /[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/** A label as a person reads it: compatibility forms folded, ideographic dots as dots, nothing invisible. */
const asRead = (label: string) =>
  label
    .normalize('NFKC')
    .replace(/[。．｡]/g, '.')
    .replace(invisible, '')
    .replace(/[*_~`]/g, '');

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase().replace(/^www\./, '');
  } catch {
    return undefined;
  }
}

/**
 * Whether a link's visible text names another place than where it goes: a label that reads as an
 * address or domain whose host is not the target's. Such a link is shown by its target instead.
 */
export function deceptiveLabel(label: string, url: string): boolean {
  const target = hostOf(url);
  for (const match of asRead(label).matchAll(addressInText)) {
    const named = match[1]?.toLowerCase().replace(/^www\./, '');
    if (named && named !== target) return true;
  }
  return false;
}

/** A URL as Slack should show it: an international host in punycode, so a look-alike reads as one. */
export function shownTarget(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}

/** The longest a held-back `[label](url)` may grow before it is let through as it is. */
const holdLimit = 2000;
// `[label](url)`, `[label](<url>)`, `[label](url "title")`: every inline form a renderer links.
const completeLink = /\[([^\]\n]*)\]\(\s*<?([^()\s<>]*)>?(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)/g;

/**
 * Rewrites streamed Markdown so no link's text lies about its target: `[https://slack.com](https://evil)`
 * becomes `[https://evil](https://evil)`. Text that may still become a link (an open `[`) is held back
 * until the link is complete, a line ends, or it grows past a limit.
 */
export class HonestLinkStream {
  private held = '';

  /** Takes the next piece of the model's text; returns what can be sent now. */
  push(text: string): string {
    const all = this.held + text;
    const cut = this.holdFrom(all);
    this.held = all.slice(cut);
    return honestMarkdown(all.slice(0, cut));
  }

  /** The rest, at the end of the answer. */
  flush(): string {
    const rest = honestMarkdown(this.held);
    this.held = '';
    return rest;
  }

  /** Where an unfinished link starts (everything from there is held), or the end of the text. */
  private holdFrom(text: string): number {
    let end = 0;
    for (const match of text.matchAll(completeLink)) end = (match.index ?? 0) + match[0].length;
    const open = text.indexOf('[', end);
    if (open === -1) return text.length;
    const tail = text.slice(open);
    // A link never spans lines: an open `[` with a line break after it is text, not a link.
    if (tail.length > holdLimit || tail.includes('\n')) return text.length;
    return open;
  }
}

/** A reference definition (`[1]: https://…`): it would turn `[label][1]` elsewhere into a link. */
const referenceDefinition = /^( {0,3})\[([^\]\n]+)\]:/gm;

/**
 * Markdown with every deceptive `[label](url)` shown by its target; reference definitions are written
 * as text, so no `[label][ref]` can become a link whose label was never checked.
 */
export function honestMarkdown(markdown: string): string {
  return markdown
    .replace(completeLink, (whole, label: string, url: string) =>
      deceptiveLabel(label, url) ? `[${shownTarget(url)}](${shownTarget(url)})` : whole,
    )
    .replace(referenceDefinition, (_whole, indent: string, name: string) => `${indent}\\[${name}\\]:`);
}
