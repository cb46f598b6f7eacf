import { describe, expect, it } from 'vitest';
import { type Connection, newConnection } from './connection.js';
import { ToolIndex } from './tool-index.js';

/** A connected builtin-style connection offering `tools`, its names forced to `names`. */
function connectionOf(server: string, tools: string[], name: (tool: string) => string): Connection {
  const connection = newConnection({
    name: server,
    transport: 'builtin',
    tools: [],
    timeoutMs: 1000,
    disabled: false,
  } as never);
  connection.state = 'connected';
  connection.tools = tools.map((tool) => ({ name: tool, inputSchema: { type: 'object' } }));
  connection.toolName = name;
  return connection;
}

describe('the tool index', () => {
  it('#43.20 a name keeps its first holder; a later tool that reads alike, or a taken name, is left out and reported', () => {
    const index = new ToolIndex();
    const clashes: string[] = [];
    index.rebuild(
      [
        connectionOf('first', ['a'], () => 'same'),
        connectionOf('second', ['b'], () => 'same'),
        connectionOf('third', ['c'], () => 'shared_name'),
      ],
      (fields) => clashes.push(`${fields.server}/${fields.tool} as ${fields.name}`),
      (name) => name === 'shared_name',
    );
    expect(index.resolve('same')).toMatchObject({ server: 'first', tool: 'a' });
    expect(index.get('shared_name')).toBeUndefined();
    expect(index.definitions().map((tool) => tool.name)).toEqual(['same']);
    expect(clashes).toEqual(['second/b as same', 'third/c as shared_name']);
  });
});
