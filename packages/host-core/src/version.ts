import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * host-core's version, from its package.json: the nearest one above this module, bundled (dist/) or not
 * (`pnpm dev` writes one file per module).
 */
export const version: string = (() => {
  let folder = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(folder, 'package.json');
    if (existsSync(manifest))
      return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
    const parent = dirname(folder);
    if (parent === folder)
      throw new Error(`host-core: no package.json above ${fileURLToPath(import.meta.url)}`);
    folder = parent;
  }
})();
