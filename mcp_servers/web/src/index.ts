#!/usr/bin/env node
import { runServer, UsageError } from '@ai-assistant/mcp-server-kit';
import { Allowlist, guardedAgent } from './address-guard.js';
import { defaultPort, options, usage } from './cli.js';
import { createServer, type SearchSettings, type WebServerOptions } from './server.js';
import { version } from './version.js';

/** A flag's value, else the variable's. */
function setting(values: Record<string, string | boolean | undefined>, flag: string, variable: string) {
  const value = values[flag];
  return (typeof value === 'string' ? value : process.env[variable])?.trim() || undefined;
}

/** The configuration: flags win over variables; the API key only from the environment (flags show in ps). */
function configuration(values: Record<string, string | boolean | undefined>): WebServerOptions {
  const backend = setting(values, 'search-backend', 'WEB_SEARCH_BACKEND');
  if (backend && !['searxng', 'brave', 'tavily', 'duckduckgo'].includes(backend))
    throw new UsageError(`WEB_SEARCH_BACKEND must be searxng, brave, tavily or duckduckgo, not "${backend}"`);
  const url = setting(values, 'search-url', 'WEB_SEARCH_URL');
  const apiKey = process.env.WEB_SEARCH_API_KEY?.trim() || undefined;
  const allow = (setting(values, 'allow', 'WEB_ALLOW_HOSTS') ?? '').split(',').filter(Boolean);
  const number = (flag: string, variable: string) => {
    const raw = setting(values, flag, variable);
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1)
      throw new UsageError(`${variable} (--${flag}) must be a whole number ≥ 1, not "${raw}"`);
    return value;
  };
  const maxBytes = number('max-bytes', 'WEB_FETCH_MAX_BYTES');
  const timeoutMs = number('timeout-ms', 'WEB_FETCH_TIMEOUT_MS');
  return {
    ...(backend
      ? { search: { backend, ...(url ? { url } : {}), ...(apiKey ? { apiKey } : {}) } as SearchSettings }
      : {}),
    allow,
    limits: { ...(maxBytes ? { maxBytes } : {}), ...(timeoutMs ? { timeoutMs } : {}) },
  };
}

await runServer({
  name: 'mcp-server-web',
  version,
  usage,
  defaultPort,
  options,
  async prepare({ values }) {
    const settings = configuration(values);
    // One guarded agent for every server instance (over HTTP, one per request or session).
    const dispatcher = guardedAgent(new Allowlist(settings.allow));
    return {
      newServer: () => createServer({ ...settings, dispatcher }),
      logFields: { search: settings.search?.backend ?? 'none' },
      close: () => dispatcher.close(),
    };
  },
});
