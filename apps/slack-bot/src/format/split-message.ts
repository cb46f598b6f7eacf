/** Longest text we put in one Slack message (Slack truncates `text` past 40 000; 3 900 keeps it readable). */
export const slackMessageLimit = 3900;

interface Piece {
  text: string;
  code: boolean;
}

function pieces(text: string): Piece[] {
  return text
    .split(/(```[\s\S]*?(?:```|$))/g)
    .filter((part) => part !== '')
    .map((part) => ({ text: part, code: part.startsWith('```') }));
}

function hardSplit(text: string, limit: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    let at = rest.lastIndexOf('\n', limit);
    if (at < limit / 2) at = rest.lastIndexOf('。', limit) + 1;
    if (at < limit / 2) at = rest.lastIndexOf(' ', limit);
    if (at < limit / 2) at = limit;
    out.push(rest.slice(0, at));
    rest = rest.slice(at).replace(/^\n/, '');
  }
  out.push(rest);
  return out;
}

function splitCode(block: string, limit: number): string[] {
  const body = block.replace(/^```\n?/, '').replace(/```$/, '');
  return hardSplit(body, limit - 8).map((chunk) => `\`\`\`\n${chunk.replace(/\n$/, '')}\n\`\`\``);
}

/**
 * Splits a long answer into Slack messages at paragraph or code-block boundaries, never inside a
 * code block (a too-long block is closed and reopened across messages).
 */
export function splitMessage(text: string, limit = slackMessageLimit): string[] {
  if (text.length <= limit) return [text];
  const units: string[] = [];
  for (const piece of pieces(text)) {
    if (piece.code) {
      units.push(...(piece.text.length <= limit ? [piece.text] : splitCode(piece.text, limit)));
    } else {
      for (const paragraph of piece.text.split(/(?<=\n\n)/)) units.push(...hardSplit(paragraph, limit));
    }
  }
  const messages: string[] = [];
  let current = '';
  for (const unit of units) {
    if (current && current.length + unit.length > limit) {
      messages.push(current.trim());
      current = '';
    }
    current += unit;
  }
  if (current.trim()) messages.push(current.trim());
  return messages;
}
