import { existsSync } from 'node:fs';
import { HostError } from '@ai-assistant/chat-types';

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

/**
 * How many tools a request carries (`TOOLS_OFFERED_MAX`, `TOOLS_OFFER_ALL_UP_TO`): both apps read it here.
 * Unset variables keep the chat loop's defaults (20 chosen; catalogs of up to 24 offered whole).
 */
export function toolChoiceFromEnvironment(env: NodeJS.ProcessEnv): {
  offered?: number;
  offerAllUpTo?: number;
} {
  const offered = wholeNumber(env, 'TOOLS_OFFERED_MAX', undefined);
  const offerAllUpTo = wholeNumber(env, 'TOOLS_OFFER_ALL_UP_TO', undefined, 0);
  // The strictest provider takes 128 tools a request (OpenAI): more could never be sent.
  for (const [name, value] of [
    ['TOOLS_OFFERED_MAX', offered],
    ['TOOLS_OFFER_ALL_UP_TO', offerAllUpTo],
  ] as const)
    if (value !== undefined && value > 128) throw new EnvironmentError(`${name} must be at most 128`);
  return {
    ...(offered !== undefined ? { offered } : {}),
    ...(offerAllUpTo !== undefined ? { offerAllUpTo } : {}),
  };
}
