import { readFileSync } from 'node:fs';
import { childProcesses } from './processes.js';

/** Debian's chromium: the browser tests drive it with playwright-core (no browser download). */
export const chromiumPath = '/usr/bin/chromium';

/** Flags for a headless chromium in a container or CI: no sandbox, no GPU, nothing it fetches itself. */
export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Whether a process of this worker is a chromium one (its command line names it). */
function isChromium(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('chrom');
  } catch {
    return false;
  }
}

/** Every live descendant of `pid` (Linux /proc). */
function descendants(pid: number): number[] {
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of childProcesses(queue.shift() as number)) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/**
 * Closes a browser and waits (at most 10 s) until none of its processes is left under this worker: the
 * worker is shared with other test files, whose checks for leftover processes must not see chromium's.
 */
export async function closeBrowser(browser: { close(): Promise<void> } | undefined): Promise<void> {
  await browser?.close();
  const deadline = Date.now() + 10_000;
  while (descendants(process.pid).some(isChromium) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
}
