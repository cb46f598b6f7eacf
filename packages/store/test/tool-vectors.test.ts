import { expect, it } from 'vitest';
import { onBothEngines } from './engines.js';

onBothEngines('#42 tool vectors', ({ fresh, open }) => {
  it('#42 tool vectors outlive the store: kept by hash as float32, the first writer wins, unknown hashes absent', async () => {
    const options = fresh();
    const first = await open(options);
    expect(await first.toolVectors.load(['a'.repeat(64)])).toEqual(new Map());
    const wide = Array.from({ length: 1536 }, (_, index) => Math.sin(index) / 10);
    await first.toolVectors.save([
      { hash: 'a'.repeat(64), model: 'text-embedding-3-small', vector: wide },
      { hash: 'b'.repeat(64), model: 'text-embedding-3-small', vector: [0.5, -0.25, 1] },
    ]);
    // Another replica computed the same tool: its write changes nothing.
    await first.toolVectors.save([
      { hash: 'b'.repeat(64), model: 'text-embedding-3-small', vector: [9, 9, 9] },
    ]);
    await expect(first.toolVectors.save([{ hash: 'c'.repeat(64), model: 'm', vector: [] }])).rejects.toThrow(
      /has 0 dimensions; between 1 and 16384 are kept/,
    );
    await first.close();

    const second = await open(options);
    const loaded = await second.toolVectors.load(['a'.repeat(64), 'b'.repeat(64), 'c'.repeat(64)]);
    expect([...loaded.keys()].sort()).toEqual(['a'.repeat(64), 'b'.repeat(64)]);
    expect(loaded.get('b'.repeat(64))).toEqual([0.5, -0.25, 1]);
    const read = loaded.get('a'.repeat(64)) ?? [];
    expect(read).toHaveLength(1536);
    expect(Math.max(...read.map((value, index) => Math.abs(value - (wide[index] ?? 0))))).toBeLessThan(1e-7);
  });
});
