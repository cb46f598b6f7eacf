import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestTokens } from '../tool-host.js';

export type { RequestTokens };

const current = new AsyncLocalStorage<RequestTokens>();

/** Runs `work` with the tokens of one request; concurrent requests never see each other's. */
export function withTokens<T>(tokens: RequestTokens | undefined, work: () => T): T {
  return current.run(tokens ?? {}, work);
}

/** The tokens of the request being served, if any. */
export function currentTokens(): RequestTokens {
  return current.getStore() ?? {};
}

const placeholder = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Filled header values, and the placeholders nothing could fill. */
export interface FilledHeaders {
  headers: Record<string, string>;
  missing: string[];
}

/**
 * Fills `${name}` from the request's tokens, then the environment, and `${name:-default}` with the
 * default when neither has it; a header with a gap is left out.
 */
export function fillHeaders(
  templates: Record<string, string>,
  tokens: RequestTokens,
  env: NodeJS.ProcessEnv,
): FilledHeaders {
  const headers: Record<string, string> = {};
  const missing: string[] = [];
  for (const [name, template] of Object.entries(templates)) {
    let complete = true;
    const value = template.replace(placeholder, (_whole, key: string, fallback?: string) => {
      const found = tokens[key] ?? env[key];
      if ((found === undefined || found === '') && fallback !== undefined) return fallback;
      if (found === undefined || found === '') {
        complete = false;
        if (!missing.includes(key)) missing.push(key);
        return '';
      }
      return found;
    });
    if (complete) headers[name] = value;
  }
  return { headers, missing };
}
