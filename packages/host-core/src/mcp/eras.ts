import type { Client, PriorDiscovery } from '@modelcontextprotocol/client';
import type { ServerConfig } from '../config/mcp-config.js';

/**
 * Which protocol era each server spoke when it last connected, so a reconnect skips the
 * `server/discover` question (a round trip, or on stdio up to 5 s for a server that never answers it). A server's era is a
 * property of where it runs, not of who connects: the key is its command or URL, never a credential.
 *
 * A modern verdict that went stale fails at the first request and is then forgotten; a legacy verdict
 * that went stale would keep an upgraded server on the old era silently, so it lasts an hour.
 */
export class EraVerdicts {
  private readonly verdicts = new Map<string, { prior: PriorDiscovery; at: number }>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly legacyLifetimeMs = 60 * 60_000,
    private readonly capacity = 1000,
  ) {}

  /** The verdict to connect with, if one is known and fresh. */
  prior(config: ServerConfig): PriorDiscovery | undefined {
    const key = endpointOf(config);
    const found = this.verdicts.get(key);
    if (!found) return undefined;
    if (found.prior.kind === 'legacy' && this.now() - found.at > this.legacyLifetimeMs) {
      this.verdicts.delete(key);
      return undefined;
    }
    return found.prior;
  }

  /** Records the era a connected client landed on. */
  record(config: ServerConfig, client: Client): void {
    const key = endpointOf(config);
    const discover = client.getDiscoverResult();
    this.verdicts.delete(key);
    this.verdicts.set(key, {
      prior: discover ? { kind: 'modern', discover } : { kind: 'legacy' },
      at: this.now(),
    });
    // The oldest verdict goes first: a map keeps its keys in the order they were set.
    if (this.verdicts.size > this.capacity) this.verdicts.delete(this.verdicts.keys().next().value as string);
  }

  /** A server known to be 2025 without a connection to show it (its process ended on the question). */
  recordLegacy(config: ServerConfig): void {
    this.verdicts.delete(endpointOf(config));
    this.verdicts.set(endpointOf(config), { prior: { kind: 'legacy' }, at: this.now() });
  }

  /** A connection failed: its verdict may be why, so the next attempt probes again. */
  forget(config: ServerConfig): void {
    this.verdicts.delete(endpointOf(config));
  }
}

/** Where a server runs: its URL, or its command line and folder. */
function endpointOf(config: ServerConfig): string {
  if (config.transport === 'stdio')
    return JSON.stringify(['stdio', config.command, config.args ?? [], config.cwd ?? '']);
  return JSON.stringify([config.transport, 'url' in config ? config.url : config.name]);
}

/** The verdicts every manager of this process shares (a person's own connections included). */
export const processEraVerdicts = new EraVerdicts();
