import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptedProvider, toolMessage } from '@ai-assistant/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { ChatService } from '../src/chat/chat-service.js';
import { everythingEntry, fixtures, managerPool, nodeServer } from './helpers.js';

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

  it('#46 server-pdf: its 6 app-only tools and its ui:// view never reach a model', async () => {
    // server-everything has resources a model may read, so the host's resource tools are offered (a
    // server whose only resource is its view brings none: see the weather server in chat-service.test.ts).
    const manager = await pool.connect([
      nodeServer('pdf', entry('server-pdf'), ['--stdio']),
      nodeServer('everything', everythingEntry, ['stdio']),
    ]);
    // Before: all 9 tools offered, poll_pdf_commands among them, and ui://pdf-viewer/mcp-app.html listed.
    const offered = manager.listTools().map((tool) => tool.name);
    expect(offered.filter((name) => name.startsWith('mcp__pdf__'))).toEqual([
      'mcp__pdf__list_pdfs',
      'mcp__pdf__display_pdf',
      'mcp__pdf__interact',
    ]);
    expect(offered).toEqual(expect.arrayContaining(['host__list_resources', 'host__read_resource']));
    expect(manager.listResources().filter((resource) => resource.server === 'pdf')).toEqual([]);
    await expect(manager.callTool('mcp__pdf__poll_pdf_commands', { viewUUID: 'x' })).rejects.toMatchObject({
      code: 'TOOL_NOT_FOUND',
    });
    // A model that guesses the view's address is told what it is, and gets none of its 4.3 MB.
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          {
            id: 'call_1',
            name: 'host__read_resource',
            arguments: { server: 'pdf', uri: 'ui://pdf-viewer/mcp-app.html' },
          },
        ],
      },
      (call) => ({ text: `read: ${toolMessage(call, 'call_1')?.content}` }),
    ]);
    const result = await new ChatService({ provider, tools: manager }).respond({
      history: [],
      userMessage: 'pdf',
    });
    expect(result.text).toMatch(/^read: Error: .*ui:\/\/pdf-viewer\/mcp-app\.html is an app's view/);
    const sent = JSON.stringify(provider.calls);
    for (const appTool of ['read_pdf_bytes', 'submit_page_data', 'poll_pdf_commands', 'save_pdf'])
      expect(sent).not.toContain(appTool);
    expect(sent).not.toContain('<script');
  }, 60_000);
});
