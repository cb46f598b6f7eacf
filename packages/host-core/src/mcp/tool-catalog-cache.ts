import type { Tool } from '@modelcontextprotocol/client';
import { ToolSchema } from '@modelcontextprotocol/core';
import { sha256Of } from '../builtins.js';
import type { ServerConfig } from '../config/mcp-config.js';

/**
 * Where each shared server's tool list is kept between starts: `@ai-assistant/store`'s `toolCatalogs`
 * is one (shared by replicas). A restart lists every tool from it at once while the servers connect
 * behind it. Keys come from {@link catalogKey}; what is loaded is checked again before it is used.
 */
export interface ToolCatalogCache {
  /** The tools saved under `key`, or undefined when none are. */
  load(key: string): Promise<unknown[] | undefined>;
  /** Keeps `tools` (a server's `tools/list`, as JSON) under `key`, replacing what was there. */
  save(key: string, tools: unknown[]): Promise<void>;
}

/**
 * The cache key of a server: its name and a hash of what makes it the same server (the transport, the
 * command and arguments or the URL; the names of its env and headers, never their values). A changed
 * entry starts from no cache rather than from another server's tools. The hash keeps the arguments and
 * URL, which may carry a secret from the environment, out of the store.
 */
export function catalogKey(config: ServerConfig): string | undefined {
  const identity =
    config.transport === 'stdio'
      ? [config.transport, config.command, config.args, config.cwd, Object.keys(config.env).sort()]
      : config.transport === 'http' || config.transport === 'sse'
        ? [config.transport, config.url, Object.keys(config.headers).sort(), config.oauth?.grant ?? null]
        : undefined;
  if (!identity) return undefined;
  const hash = sha256Of(JSON.stringify(identity), 'hex').slice(0, 32);
  return `${config.name}:${hash}`;
}

/** The cached tools that are still well-formed tools (a cache written by another version may not be). */
export function cachedTools(value: unknown[] | undefined): Tool[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const tools = value.flatMap((tool) => {
    const parsed = ToolSchema.safeParse(tool);
    return parsed.success ? [parsed.data] : [];
  });
  return tools.length > 0 ? tools : undefined;
}
