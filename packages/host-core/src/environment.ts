import { existsSync } from 'node:fs';
import { HostError } from './errors.js';

/** A variable is malformed; the message names it, never its value. */
export class EnvironmentError extends HostError {
  override name = 'EnvironmentError';
  constructor(message: string) {
    super('ENVIRONMENT_INVALID', message);
  }
}

/** Reads `.env` when present (Node's own loader; variables already set win). The apps' one reader. */
export function loadDotEnv(path = '.env'): boolean {
  if (!existsSync(path)) return false;
  process.loadEnvFile(path);
  return true;
}

/** A whole number ≥ `minimum` from the environment; unset or blank gives `fallback`. */
export function wholeNumber(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number | undefined,
  minimum = 1,
): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < minimum)
    throw new EnvironmentError(`${name} must be a whole number ≥ ${minimum}`);
  return value;
}
