import { createRequire } from 'node:module';

/** This package's version, read from its package.json. */
export const version: string = (createRequire(import.meta.url)('../package.json') as { version: string })
  .version;
