import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { People } from '@ai-assistant/assistant';
import { McpClientManager } from '@ai-assistant/host-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeLine } from '../src/commands.js';

const everythingEntry = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

// Tab in the terminal chat: what readline's completer gets for a line typed so far.
describe('Tab completion in the terminal chat', () => {
  const manager = new McpClientManager();
  const people = new People(manager, undefined);
  beforeAll(async () => {
    await manager.connect([
      {
        name: 'everything',
        transport: 'stdio',
        command: process.execPath,
        args: [everythingEntry, 'stdio'],
        env: {},
        cwd: process.cwd(),
        timeoutMs: 10_000,
        disabled: false,
      },
    ]);
  });
  afterAll(() => manager.close());

  it('completes commands, then /prompt’s server, prompt, argument names and the server’s values', async () => {
    expect(await completeLine('/pro', people)).toEqual([['/prompts', '/prompt'], '/pro']);
    expect(await completeLine('/prompt ev', people)).toEqual([['everything'], 'ev']);
    expect((await completeLine('/prompt everything comp', people))[0]).toEqual(['completable-prompt']);
    expect(await completeLine('/prompt everything completable-prompt d', people)).toEqual([
      ['department='],
      'd',
    ]);
    expect(await completeLine('/prompt everything completable-prompt department=S', people)).toEqual([
      ['department=Sales', 'department=Support'],
      'department=S',
    ]);
    // Earlier arguments are the server's context.
    expect(
      (await completeLine('/prompt everything completable-prompt department=Sales name=', people))[0],
    ).toEqual(['name=David', 'name=Eve', 'name=Frank']);
  });
});
