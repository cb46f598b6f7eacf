/**
 * Text that reads as a web address or a domain ("https://slack.com/signin", "slack.com", "slаck.com" with
 * a Cyrillic а, "slack.com."): any letters, so a look-alike in another script counts as an address too.
 */
const addressLike =
  /^\s*(?:[a-z][a-z0-9+.-]*:\/\/)?(?:[^\s/@]*@)?(?:www\.)?([\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+)\.?(?::\d+)?(?:[/?#]\S*)?\s*$/iu;
/** Characters that show as nothing: they can split a domain without changing how it reads. */
const invisible = /[\u00ad\u200b-\u200f\u2060-\u2064\ufeff]/g;

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
  const named = addressLike.exec(label.replace(/[*_~`]/g, '').replace(invisible, ''))?.[1]?.toLowerCase();
  if (!named) return false;
  const target = hostOf(url);
  return target === undefined || named !== target;
}

/** The longest a held-back `[label](url)` may grow before it is let through as it is. */
const holdLimit = 2000;
const completeLink = /\[([^\]\n]*)\]\(([^()\s]*)\)/g;

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
      deceptiveLabel(label, url) ? `[${url}](${url})` : whole,
    )
    .replace(referenceDefinition, (_whole, indent: string, name: string) => `${indent}\\[${name}\\]:`);
}
