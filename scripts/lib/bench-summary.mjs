// What `pnpm bench` says at the end: every row that states an aim says `met` or `MISSED`; the summary
// counts them and repeats each missed row, so a missed aim is not lost among the tables above it.

/** A line without its colour codes (ESC [ … m). */
const uncoloured = (line) => line.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '');

/** The rows that state an aim, each with whether every aim on it is met, from the benches' output. */
export function aimRows(output) {
  const rows = [];
  for (const raw of output.split('\n')) {
    // Turbo puts the task before each line: `@ai-assistant/store:bench: `.
    const [, package_, rest] = /^(?:(\S+):bench: )?(.*)$/.exec(uncoloured(raw)) ?? [];
    const line = (rest ?? '').trim();
    if (!/\b(met|MISSED)\b/.test(line)) continue;
    rows.push({ line, package: package_, met: !/\bMISSED\b/.test(line) });
  }
  return rows;
}

/** The closing lines: counts, then each missed row with its package. */
export function benchSummary(rows) {
  const missed = rows.filter((row) => !row.met);
  const lines = [`bench: ${rows.length - missed.length} aims met, ${missed.length} missed`];
  for (const row of missed) lines.push(`  MISSED ${row.package ? `(${row.package}) ` : ''}${row.line}`);
  return lines.join('\n');
}
