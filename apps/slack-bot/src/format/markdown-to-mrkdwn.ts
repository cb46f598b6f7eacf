// LLMs write Markdown; Slack's `text` field speaks mrkdwn. Code (fenced and inline) passes unchanged.

function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function convertInline(text: string): string {
  // Protect inline code and links behind private-use markers, convert, then put them back.
  const codes: string[] = [];
  let converted = text.replace(/`[^`\n]+`/g, (code) => {
    codes.push(code);
    return `\uE000${codes.length - 1}\uE000`;
  });
  const links: string[] = [];
  converted = converted.replace(
    /\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g,
    (_whole, label: string, url: string) => {
      links.push(`<${url}|${escapeSlack(label)}>`);
      return `\uE001${links.length - 1}\uE001`;
    },
  );
  converted = escapeSlack(converted)
    .replace(/\*\*\*(.+?)\*\*\*/g, '\uE002_$1_\uE002')
    .replace(/\*\*(.+?)\*\*/g, '\uE002$1\uE002')
    .replace(/(^|[^\w])__(?!\s)(.+?)__(?!\w)/g, '$1\uE002$2\uE002')
    .replace(/(^|[^*\w])\*(?!\s)([^*\n]+?)\*(?!\w)/g, '$1_$2_')
    .replace(/~~(.+?)~~/g, '~$1~')
    .replace(/\uE002/g, '*');
  return converted
    .replace(/\uE001(\d+)\uE001/g, (_whole, index: string) => links[Number(index)] ?? '')
    .replace(/\uE000(\d+)\uE000/g, (_whole, index: string) => codes[Number(index)] ?? '');
}

function convertLine(line: string): string {
  const heading = /^#{1,6}\s+(.+?)\s*#*$/.exec(line);
  if (heading) return `*${convertInline(heading[1] ?? '').replace(/^\*(.*)\*$/, '$1')}*`;
  const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line);
  if (bullet) return `${bullet[1]}• ${convertInline(bullet[2] ?? '')}`;
  const quote = /^>\s?(.*)$/.exec(line);
  if (quote) return `> ${convertInline(quote[1] ?? '')}`;
  if (/^\s*([-*_])\s*\1\s*\1[\s\-*_]*$/.test(line)) return '──────────';
  return convertInline(line);
}

/** Converts Markdown to Slack mrkdwn, leaving fenced and inline code alone. */
export function markdownToMrkdwn(markdown: string): string {
  const parts = markdown.split(/(```[\s\S]*?(?:```|$))/g);
  return parts
    .map((part) => {
      if (part.startsWith('```')) {
        // Slack ignores the language tag; drop it so it is not shown as code.
        return part.replace(/^```[\w+-]*\n/, '```\n');
      }
      return part.split('\n').map(convertLine).join('\n');
    })
    .join('');
}
