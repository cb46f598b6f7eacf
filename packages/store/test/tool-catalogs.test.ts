import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { maxCatalogBytes } from '../src/index.js';
import { storeDatabase } from '../src/testing.js';
import { onBothEngines } from './engines.js';

const echo = { name: 'echo', description: 'Echoes the message', inputSchema: { type: 'object' } };

onBothEngines('#42 tool catalogs', ({ fresh, open }) => {
  it('#42 keeps each server’s tool list by key, replaced on save; unknown keys, broken rows and oversized lists give nothing', async () => {
    const store = await open(fresh());
    expect(await store.toolCatalogs.load('echo:abc')).toBeUndefined();
    await store.toolCatalogs.save('echo:abc', [echo]);
    await store.toolCatalogs.save('other:def', []);
    expect(await store.toolCatalogs.load('echo:abc')).toEqual([echo]);
    await store.toolCatalogs.save('echo:abc', [echo, { ...echo, name: 'echo_twice' }]);
    expect(
      (await store.toolCatalogs.load('echo:abc'))?.map((tool) => (tool as { name: string }).name),
    ).toEqual(['echo', 'echo_twice']);
    expect(await store.toolCatalogs.load('other:def')).toEqual([]);
    // A row another version wrote badly is no catalog, not an error.
    await sql`update tool_catalogs set tools = '{"not": "a list"' where key = 'other:def'`.execute(
      storeDatabase(store),
    );
    expect(await store.toolCatalogs.load('other:def')).toBeUndefined();
    await expect(
      store.toolCatalogs.save('huge:1', [{ ...echo, description: 'x'.repeat(maxCatalogBytes) }]),
    ).rejects.toThrow(/tool list of huge:1 is \d+ bytes, over the 4194304 the store keeps/);
  });
});
