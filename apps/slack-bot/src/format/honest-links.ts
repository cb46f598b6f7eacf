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
