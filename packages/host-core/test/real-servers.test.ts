import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fixtures, managerPool, nodeServer } from './helpers.js';

// The official reference servers from npm, on their own SDKs, as a person would configure them.
const entry = (name: string) =>
  join(import.meta.dirname, '..', 'node_modules', '@modelcontextprotocol', name, 'dist', 'index.js');

describe('#45 real servers from npm work as before the SDK v2 move', () => {
  const pool = managerPool();
  afterEach(() => pool.closeAll());

  it('#45 filesystem, memory, sequential-thinking and pdf connect, list their tools and answer a call', async () => {
    const memory = join(mkdtempSync(join(tmpdir(), 'memory-')), 'memory.jsonl');
    const manager = await pool.connect([
      nodeServer('fs', entry('server-filesystem'), [fixtures]),
      nodeServer('memory', entry('server-memory'), [], { env: { MEMORY_FILE_PATH: memory } }),
      nodeServer('thinking', entry('server-sequential-thinking')),
      nodeServer('pdf', entry('server-pdf'), ['--stdio']),
    ]);
    expect(manager.status().map((server) => [server.name, server.state, server.protocolVersion])).toEqual([
      ['fs', 'connected', '2025-11-25'],
      ['memory', 'connected', '2025-11-25'],
      ['thinking', 'connected', '2025-11-25'],
      ['pdf', 'connected', '2025-11-25'],
    ]);
    const read = await manager.callTool('mcp__fs__read_text_file', { path: join(fixtures, 'petstore.json') });
    expect(read.text).toContain('"openapi"');
    await manager.callTool('mcp__memory__create_entities', {
      entities: [{ name: 'Tanaka', entityType: 'person', observations: ['likes onsen'] }],
    });
    expect((await manager.callTool('mcp__memory__read_graph', {})).text).toContain('likes onsen');
    const thought = await manager.callTool('mcp__thinking__sequentialthinking', {
      thought: 'one step',
      nextThoughtNeeded: false,
      thoughtNumber: 1,
      totalThoughts: 1,
    });
    expect(thought.isError).toBe(false);
    expect(thought.text).toContain('thoughtNumber');
    expect((await manager.callTool('mcp__pdf__list_pdfs', {})).isError).toBe(false);
  }, 60_000);
});
