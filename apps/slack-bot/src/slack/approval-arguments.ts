import { escapeSlackText } from '../format/slack-text.js';

/** Slack's limits for a section block: 10 fields of 2 000 characters, or a text of 3 000. */
const fieldsPerSection = 10;
const fieldLimit = 2000;
const textLimit = 3000;
/** Blocks an approval message may spend on arguments (Slack: 50 blocks a message; 2 are ours). */
export const argumentBlockBudget = 45;

type ArgumentBlock = {
  type: 'section';
  fields?: Array<{ type: 'mrkdwn'; text: string }>;
  text?: { type: 'mrkdwn'; text: string };
};

/** The arguments as Slack sees them, every one whole, or why they cannot all be shown. */
export type ArgumentDisplay =
  | { complete: true; blocks: ArgumentBlock[] }
  | { complete: false; reason: string };

const shown = (value: unknown) =>
  typeof value === 'string' ? value : (JSON.stringify(value, null, 1) ?? String(value));

/** The longest argument name shown: a longer one is no name a person can check. */
const nameLimit = 200;

/** Escaped pieces of `text`, each at most `limit` (≥ 5) characters once escaped, together all of it. */
function pieces(text: string, limit: number): string[] {
  const result: string[] = [];
  let rest = text;
  while (rest.length > 0) {
    let take = Math.min(rest.length, limit);
    // One character escapes to at most 5 (`&amp;`): with limit ≥ 5 this ends at a piece of one.
    while (take > 1 && escapeSlackText(rest.slice(0, take)).length > limit) take = Math.floor(take / 2);
    // Never between the two halves of a surrogate pair.
    if (take < rest.length && /[\ud800-\udbff]/.test(rest.charAt(take - 1))) take += take > 1 ? -1 : 1;
    result.push(escapeSlackText(rest.slice(0, take)));
    rest = rest.slice(take);
  }
  return result;
}

/**
 * Every argument the tool will receive, written by the host: short ones as fields (ten to a section),
 * long ones whole over as many sections as they need, every name and value escaped. When all of them do
 * not fit in one message, it says so instead: a person never approves what they were not shown.
 */
export function argumentDisplay(args: Record<string, unknown>): ArgumentDisplay {
  const fields: Array<{ type: 'mrkdwn'; text: string }> = [];
  const long: ArgumentBlock[] = [];
  for (const [name, value] of Object.entries(args)) {
    if (name.length > nameLimit)
      return { complete: false, reason: `an argument name of ${name.length} characters cannot be shown` };
    const label = `*${escapeSlackText(name)}*`;
    const text = escapeSlackText(shown(value));
    if (label.length + 1 + text.length <= fieldLimit) {
      fields.push({ type: 'mrkdwn', text: `${label}\n${text || ' '}` });
      continue;
    }
    const parts = pieces(shown(value), textLimit - label.length - 40);
    for (const [index, part] of parts.entries())
      long.push({
        type: 'section',
        text: { type: 'mrkdwn', text: `${label} (${index + 1}/${parts.length})\n${part}` },
      });
  }
  const blocks: ArgumentBlock[] = [];
  for (let start = 0; start < fields.length; start += fieldsPerSection)
    blocks.push({ type: 'section', fields: fields.slice(start, start + fieldsPerSection) });
  blocks.push(...long);
  if (blocks.length > argumentBlockBudget) {
    const characters = Object.values(args).reduce<number>((sum, value) => sum + shown(value).length, 0);
    return {
      complete: false,
      reason: `${Object.keys(args).length} arguments, ${characters} characters: more than one Slack message can show`,
    };
  }
  return { complete: true, blocks };
}
