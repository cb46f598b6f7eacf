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
