import { existsSync } from 'node:fs';
import { HostError } from '@ai-assistant/chat-types';
import { defaultAnswerTimeoutMs } from './chat/answer-deadline.js';
import type { ChatServiceOptions } from './chat/chat-types.js';

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
 * How many tools a request carries (`TOOLS_OFFERED_MAX`, `TOOLS_OFFER_ALL_UP_TO`). Unset variables keep
 * the chat loop's defaults (20 chosen; catalogs of up to 24 offered whole).
 */
function toolChoiceFromEnvironment(env: NodeJS.ProcessEnv): {
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

/** The chat loop's settings as both apps read them from the environment; spread into `ChatService`. */
export interface ChatLoopSettings
  extends Pick<ChatServiceOptions, 'maxIterations' | 'toolTimeoutMs' | 'maxToolCallsPerRound'> {
  /** `ANSWER_TIMEOUT_MS` (default 120 000). */
  answerTimeoutMs: number;
  /** `TOOLS_OFFERED_MAX`, `TOOLS_OFFER_ALL_UP_TO`. */
  toolChoice: { offered?: number; offerAllUpTo?: number };
}

/**
 * The chat loop's settings from the environment, the same in both apps: `TOOL_LOOP_MAX_ITERATIONS`,
 * `TOOL_CALL_TIMEOUT_MS`, `MAX_TOOL_CALLS_PER_ROUND`, `ANSWER_TIMEOUT_MS`, `TOOLS_OFFERED_MAX` and
 * `TOOLS_OFFER_ALL_UP_TO`. Unset ones keep the loop's defaults; a malformed one is an
 * {@link EnvironmentError} naming it.
 */
export function chatLoopFromEnvironment(env: NodeJS.ProcessEnv): ChatLoopSettings {
  const maxIterations = wholeNumber(env, 'TOOL_LOOP_MAX_ITERATIONS', undefined);
  const toolTimeoutMs = wholeNumber(env, 'TOOL_CALL_TIMEOUT_MS', undefined);
  const maxToolCallsPerRound = wholeNumber(env, 'MAX_TOOL_CALLS_PER_ROUND', undefined);
  return {
    ...(maxIterations !== undefined ? { maxIterations } : {}),
    ...(toolTimeoutMs !== undefined ? { toolTimeoutMs } : {}),
    ...(maxToolCallsPerRound !== undefined ? { maxToolCallsPerRound } : {}),
    answerTimeoutMs: wholeNumber(env, 'ANSWER_TIMEOUT_MS', defaultAnswerTimeoutMs) as number,
    toolChoice: toolChoiceFromEnvironment(env),
  };
}
