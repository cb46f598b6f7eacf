/** One robots.txt group's rules for an agent: the longest matching path wins; Allow wins a tie. */
interface Rule {
  allow: boolean;
  path: string;
}

/** The rules of a robots.txt for `agent` (its own group, else `*`); none when nothing applies. */
export function robotsRules(text: string, agent: string): Rule[] {
  const groups: Array<{ agents: string[]; rules: Rule[] }> = [];
  let current: { agents: string[]; rules: Rule[] } | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/#.*$/, '').trim();
    const match = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
    if (!match) continue;
    const field = (match[1] as string).toLowerCase();
    const value = (match[2] as string).trim();
    if (field === 'user-agent') {
      if (!current || current.rules.length > 0) {
        current = { agents: [], rules: [] };
        groups.push(current);
      }
      current.agents.push(value.toLowerCase());
    } else if ((field === 'allow' || field === 'disallow') && current) {
      if (value) current.rules.push({ allow: field === 'allow', path: value });
      else if (field === 'disallow') current.rules.push({ allow: true, path: '' });
    }
  }
  const name = agent.toLowerCase();
  const own = groups.filter((group) => group.agents.some((entry) => entry !== '*' && name.includes(entry)));
  const chosen = own.length > 0 ? own : groups.filter((group) => group.agents.includes('*'));
  return chosen.flatMap((group) => group.rules);
}

/** Whether `path` (with its query) may be fetched under `rules` (`*` and a final `$` understood). */
export function robotsAllow(rules: Rule[], path: string): boolean {
  let best: Rule | undefined;
  for (const rule of rules) {
    const pattern = new RegExp(
      `^${rule.path
        .replace(/[.+?^{}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\\\$$/, '$')
        .replace(/\$$/, '$')}`,
    );
    if (!pattern.test(path)) continue;
    if (!best || rule.path.length > best.path.length || (rule.path.length === best.path.length && rule.allow))
      best = rule;
  }
  return best ? best.allow : true;
}
