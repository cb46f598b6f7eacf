// What `pnpm demo` prints of a Slack message: mrkdwn as a person reads it in Slack, not as it is sent.
// Slack shows <@U…> as a name, <url|text> as a link and its escapes as the characters; the bot's own
// output stays mrkdwn (apps/slack-bot/src/format), only this display reads it.

/** Slack's three entities (docs.slack.dev/messaging/formatting-message-text: escaping). */
const unescapeEntities = (text) =>
  text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');

/**
 * `text` as Slack shows it: a mention as @name (from `people`, a user id → name map; else the name the
 * mention carries; else @user), a channel as #name, `<!here>` as @here, a link as `text (url)` (a bare
 * one as its URL), a backslash before punctuation dropped (Markdown's escape, which Slack would show),
 * and &lt; &gt; &amp; as < > &.
 */
export function readable(text, people = {}) {
  const shown = text.replace(/<([^<>]+)>/g, (_, inside) => {
    const [target, label] = inside.split('|', 2);
    if (target.startsWith('@')) return `@${label ?? people[target.slice(1)] ?? 'user'}`;
    if (target.startsWith('#')) return `#${label ?? 'channel'}`;
    if (target.startsWith('!')) return `@${label ?? target.slice(1).split('^')[0]}`;
    const url = unescapeEntities(target);
    return label ? `${unescapeEntities(label)} (${url})` : url;
  });
  // Markdown's backslash escapes of ASCII punctuation (CommonMark 2.4), e.g. \[1] for a citation.
  return unescapeEntities(shown.replace(/\\([!-/:-@[-`{-~])/g, '$1'));
}
