import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

/** Lines of a server's stderr kept to explain a failure. */
export const stderrLinesKept = 20;

/**
 * The stderr lines that say why a server failed: the first `Error`-like line and the stack frame after
 * it (Node prints the real cause first and its own version last), else the last line; at most `budget`
 * characters.
 */
export function stderrCause(lines: string[], budget = 400): string | undefined {
  if (lines.length === 0) return undefined;
  const errorAt = lines.findIndex((line) => /\b\w*(Error|Exception)\b|^error:/i.test(line));
  let picked: string[];
  if (errorAt >= 0) {
    const frame = lines.slice(errorAt + 1).find((line) => /^\s+at\s/.test(line));
    picked = [lines[errorAt] as string, ...(frame ? [frame.trim()] : [])];
  } else {
    picked = [lines.at(-1) as string];
  }
  const text = picked.map((line) => line.trim()).join(' | ');
  return text.length > budget ? `${text.slice(0, budget - 1)}…` : text;
}

/**
 * A stdio server's program or script that does not exist, named with the folder it was resolved
 * against; undefined when every path that looks like a file exists. Bare command names are left to PATH.
 */
export function missingPath(command: string, args: string[], cwd: string): string | undefined {
  const candidates: Array<[string, string]> = [];
  if (command.includes('/')) candidates.push(['command', command]);
  args.forEach((arg, index) => {
    if (!arg.startsWith('-') && !arg.includes('=') && /\.(?:[cm]?js|ts|py)$/.test(arg))
      candidates.push([`args[${index}]`, arg]);
  });
  for (const [field, path] of candidates) {
    const full = isAbsolute(path) ? path : resolve(cwd, path);
    if (!existsSync(full)) return `${field} "${path}" does not exist (resolved against ${cwd}: ${full})`;
  }
  return undefined;
}
