import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Folder of the vendor responses written for these tests (see its README). */
export const llmFixturesDir: string = join(import.meta.dirname, 'fixtures');

/** A fixture file as text. */
export function fixtureText(path: string): string {
  return readFileSync(join(llmFixturesDir, path), 'utf8');
}

/** A fixture JSON file. */
export function fixtureJson(path: string): unknown {
  return JSON.parse(fixtureText(path));
}
