import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** One tool's vector under one embeddings model, by the hash of the model and the tool's text. */
export interface ToolVector {
  hash: string;
  model: string;
  vector: number[];
}

/** Hashes per query: well under PostgreSQL's 65 535 bind parameters, and a catalog is hundreds. */
const hashesPerRead = 1000;
/** Rows per insert (each binds five values). */
const rowsPerWrite = 200;
/** Longest vector kept (the largest embeddings models give 4 096 dimensions). */
const maxDimensions = 16_384;

function toBytes(vector: number[]): Uint8Array {
  const floats = Float32Array.from(vector);
  return new Uint8Array(floats.buffer, floats.byteOffset, floats.byteLength);
}

function fromBytes(bytes: Uint8Array): number[] {
  // Copied: a driver's buffer may start at an offset that is no multiple of 4.
  const copy = new Uint8Array(bytes);
  return Array.from(new Float32Array(copy.buffer, 0, Math.floor(copy.byteLength / 4)));
}

/**
 * Tools' embedding vectors, computed once for every replica and restart: keyed by a hash of the
 * embeddings model and the tool's text, so a changed description is a new row, never a stale one.
 */
export class ToolVectors {
  constructor(private readonly db: Kysely<Database>) {}

  /** The vectors stored for these hashes (those never stored are absent). */
  async load(hashes: string[]): Promise<Map<string, number[]>> {
    const found = new Map<string, number[]>();
    const unique = [...new Set(hashes)];
    for (let start = 0; start < unique.length; start += hashesPerRead) {
      const rows = await this.db
        .selectFrom('tool_vectors')
        .select(['hash', 'vector'])
        .where('hash', 'in', unique.slice(start, start + hashesPerRead))
        .execute();
      for (const row of rows) found.set(row.hash, fromBytes(row.vector));
    }
    return found;
  }

  /** Keeps vectors; one already stored (another replica computed it too) stays as it is. */
  async save(entries: ToolVector[]): Promise<void> {
    for (const entry of entries)
      if (entry.vector.length === 0 || entry.vector.length > maxDimensions)
        throw new Error(
          `tool vector ${entry.hash} has ${entry.vector.length} dimensions; between 1 and ${maxDimensions} are kept`,
        );
    const now = new Date();
    for (let start = 0; start < entries.length; start += rowsPerWrite) {
      await this.db
        .insertInto('tool_vectors')
        .values(
          entries.slice(start, start + rowsPerWrite).map((entry) => ({
            hash: entry.hash,
            model: entry.model,
            dimensions: entry.vector.length,
            vector: toBytes(entry.vector),
            created_at: now,
          })),
        )
        .onConflict((conflict) => conflict.column('hash').doNothing())
        .execute();
    }
  }
}
