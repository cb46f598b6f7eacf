import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Folder of the recorded JMA responses shipped with this package (`test/fixtures/jma`). The same path
 * works from `src/testing` (tests) and `dist/testing` (the built `./testing` export).
 */
export const jmaFixturesDir: string = resolve(import.meta.dirname, '..', '..', 'test', 'fixtures', 'jma');

/** Reads and parses one recorded file, e.g. `area.json`. */
export function readJmaFixture(name: string): unknown {
  return JSON.parse(readFileSync(join(jmaFixturesDir, name), 'utf8'));
}
