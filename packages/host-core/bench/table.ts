/** Value at a fraction (0.5 = median) of the sorted samples. */
export function percentile(samples: number[], fraction: number): number {
  const sorted = [...samples].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

/** Whether a figure met its aim, said so that a missed one stands out in the table. */
export const verdict = (met: boolean) => (met ? 'met' : 'MISSED');

/** Prints a two-column Markdown table to stdout. */
export function printTable(title: string, rows: Array<[string, string]>): void {
  const width = Math.max(...rows.map(([label]) => label.length));
  const lines = rows.map(([label, value]) => `| ${label.padEnd(width)} | ${value} |`);
  process.stdout.write(`\n${title}\n${lines.join('\n')}\n\n`);
}
