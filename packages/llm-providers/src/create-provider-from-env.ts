import type { LLMProvider, Logger } from '@ai-assistant/chat-types';
import { HostError } from '@ai-assistant/chat-types';
import { AnthropicProvider } from './anthropic/anthropic-provider.js';
import { OpenAICompatibleProvider, OpenAIProvider } from './openai/openai-provider.js';
import type { Redact } from './provider-error.js';

/** The configuration is missing or wrong; the message names the variable to set, never a value. */
export class ProviderConfigError extends HostError {
  override name = 'ProviderConfigError';
  constructor(message: string) {
    super('LLM_NOT_CONFIGURED', message);
  }
}

/** Default model per provider, used when `LLM_MODEL` is unset. */
export const defaultModels = {
  openai: 'gpt-5.5',
  anthropic: 'claude-sonnet-5-5',
  gemini: 'gemini-3.8-flash',
  'openai-compatible': 'local-model',
} as const;

/** Gemini's OpenAI-compatible endpoint. */
export const geminiBaseURL = 'https://generativelanguage.googleapis.com/v1beta/openai/';

/** Every LLM request's own time limit unless `LLM_TIMEOUT_MS` says otherwise (the SDKs wait 10 minutes). */
export const defaultLlmTimeoutMs = 60_000;

/** What to tell someone who has configured no model at all. */
export const llmSetupHint =
  'Set OPENAI_API_KEY (OpenAI), ANTHROPIC_API_KEY (Anthropic), GEMINI_API_KEY (Gemini), or LLM_PROVIDER=openai-compatible with ' +
  'LLM_BASE_URL (LM Studio http://localhost:1234/v1, Ollama http://localhost:11434/v1, vLLM, llama.cpp).';

function positiveNumber(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0)
    throw new ProviderConfigError(`${name} must be a non-negative number`);
  return value;
}

/**
 * `EMBEDDINGS_MODEL`: the embeddings model (`none`: no embeddings). Unset, OpenAI uses its default and the
 * compatible servers none, since their models have no common name.
 */
function embeddingModel(env: NodeJS.ProcessEnv): string | false | undefined {
  const configured = env.EMBEDDINGS_MODEL?.trim();
  if (!configured) return undefined;
  return configured.toLowerCase() === 'none' ? false : configured;
}

/**
 * Builds the provider the environment asks for: `LLM_PROVIDER` (`openai` | `anthropic` | `gemini` |
 * `openai-compatible`; when unset, the one whose key is present), `LLM_MODEL`, `OPENAI_API_KEY`,
 * `GEMINI_API_KEY` (or `GOOGLE_API_KEY`), `GEMINI_BASE_URL`,
 * `OPENAI_BASE_URL`, `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`, `LLM_BASE_URL`, `LLM_API_KEY`,
 * `LLM_TIMEOUT_MS`, `LLM_MAX_RETRIES`, `LLM_MAX_TOKENS`, `LLM_VISION`, `EMBEDDINGS_MODEL`.
 */
export function createProviderFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  options: { logger?: Logger; fetch?: typeof fetch; redact?: Redact } = {},
): LLMProvider {
  const requested = env.LLM_PROVIDER?.trim().toLowerCase();
  const kind =
    requested ||
    (env.OPENAI_API_KEY
      ? 'openai'
      : env.ANTHROPIC_API_KEY
        ? 'anthropic'
        : env.GEMINI_API_KEY || env.GOOGLE_API_KEY
          ? 'gemini'
          : env.LLM_BASE_URL
            ? 'openai-compatible'
            : undefined);
  if (!kind) throw new ProviderConfigError(`No LLM is configured. ${llmSetupHint}`);
  const common = {
    timeout: positiveNumber(env, 'LLM_TIMEOUT_MS') || defaultLlmTimeoutMs,
    maxRetries: positiveNumber(env, 'LLM_MAX_RETRIES'),
    maxTokens: positiveNumber(env, 'LLM_MAX_TOKENS'),
    logger: options.logger,
    fetch: options.fetch,
    redact: options.redact,
    // LLM_VISION=true|false says whether the model reads images; unset, the model's name decides.
    ...(env.LLM_VISION === 'true' || env.LLM_VISION === 'false' ? { vision: env.LLM_VISION === 'true' } : {}),
  };
  const embeddings = embeddingModel(env);
  switch (kind) {
    case 'openai':
      if (!env.OPENAI_API_KEY)
        throw new ProviderConfigError('LLM_PROVIDER is openai but OPENAI_API_KEY is not set');
      return new OpenAIProvider({
        ...common,
        model: env.LLM_MODEL || defaultModels.openai,
        apiKey: env.OPENAI_API_KEY,
        baseURL: env.OPENAI_BASE_URL || undefined,
        ...(embeddings !== undefined ? { embeddingModel: embeddings } : {}),
      });
    case 'anthropic':
      if (!env.ANTHROPIC_API_KEY)
        throw new ProviderConfigError('LLM_PROVIDER is anthropic but ANTHROPIC_API_KEY is not set');
      return new AnthropicProvider({
        ...common,
        model: env.LLM_MODEL || defaultModels.anthropic,
        apiKey: env.ANTHROPIC_API_KEY,
        baseURL: env.ANTHROPIC_BASE_URL || undefined,
      });
    case 'gemini': {
      const apiKey = env.GEMINI_API_KEY || env.GOOGLE_API_KEY;
      if (!apiKey)
        throw new ProviderConfigError(
          'LLM_PROVIDER is gemini but neither GEMINI_API_KEY nor GOOGLE_API_KEY is set',
        );
      // Gemini speaks the OpenAI wire format at its own endpoint, with the compatible servers' quirks
      // (empty tool-call ids, \`max_tokens\`), so the lenient adapter serves it.
      return new OpenAICompatibleProvider({
        ...common,
        name: 'gemini',
        model: env.LLM_MODEL || defaultModels.gemini,
        apiKey,
        baseURL: env.GEMINI_BASE_URL || geminiBaseURL,
        ...(embeddings !== undefined ? { embeddingModel: embeddings } : {}),
      });
    }
    case 'openai-compatible':
    case 'lmstudio':
    case 'ollama':
    case 'vllm':
      return new OpenAICompatibleProvider({
        ...common,
        model: env.LLM_MODEL || defaultModels['openai-compatible'],
        apiKey: env.LLM_API_KEY || undefined,
        baseURL: env.LLM_BASE_URL || (kind === 'ollama' ? 'http://localhost:11434/v1' : undefined),
        supportsTools: env.LLM_SUPPORTS_TOOLS === 'false' ? false : undefined,
        ...(embeddings !== undefined ? { embeddingModel: embeddings } : {}),
      });
    default:
      throw new ProviderConfigError(
        `LLM_PROVIDER="${requested}" is not a known provider; use openai, anthropic, gemini or openai-compatible`,
      );
  }
}
