import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** The largest tool list kept for one server (JSON): the biggest real catalogs are about 250 KB. */
export const maxCatalogBytes = 4 * 1024 * 1024;

/**
 * Each shared MCP server's tool list, kept between starts and shared by replicas: a restart lists
 * every tool at once while the servers connect behind it (host-core's `ToolCatalogCache`). Keys are
 * host-core's (`<server>:<hash of what identifies it>`); nothing here is a secret.
 */
export class ToolCatalogs {
  constructor(private readonly db: Kysely<Database>) {}

  /** The tools kept under `key`; undefined when none are, or what is kept is not a JSON array. */
  async load(key: string): Promise<unknown[] | undefined> {
    const row = await this.db
      .selectFrom('tool_catalogs')
      .select('tools')
      .where('key', '=', key)
      .executeTakeFirst();
    if (!row) return undefined;
    try {
      const tools: unknown = JSON.parse(row.tools);
      return Array.isArray(tools) ? tools : undefined;
    } catch {
      return undefined;
    }
  }

  /** Keeps `tools` under `key`, replacing what was there. Refuses a list over {@link maxCatalogBytes}. */
  async save(key: string, tools: unknown[]): Promise<void> {
    const json = JSON.stringify(tools);
    if (Buffer.byteLength(json) > maxCatalogBytes)
      throw new Error(
        `the tool list of ${key} is ${Buffer.byteLength(json)} bytes, over the ${maxCatalogBytes} the store keeps; it is listed once the server connects`,
      );
    const now = new Date();
    await this.db
      .insertInto('tool_catalogs')
      .values({ key, tools: json, updated_at: now })
      .onConflict((conflict) => conflict.column('key').doUpdateSet({ tools: json, updated_at: now }))
      .execute();
  }
}
