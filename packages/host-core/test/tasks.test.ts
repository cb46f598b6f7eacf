import { afterEach, describe, expect, it } from 'vitest';
import type { Connection } from '../src/mcp/connection.js';
import { visibleTools } from '../src/mcp/tool-index.js';
import { everythingEntry, managerPool, nodeServer } from './helpers.js';

const research = 'mcp__everything__simulate-research-query';

// server-everything's research tool must run as a task (execution.taskSupport "required").
describe('tools that run as tasks', () => {
  const pool = managerPool();
  afterEach(() => pool.closeAll());

  it('a task-required tool completes as a task, its statuses reported like progress', async () => {
    const manager = await pool.connect([
      nodeServer('everything', everythingEntry, ['stdio'], { timeoutMs: 3000, maxTimeoutMs: 30_000 }),
    ]);
    expect(manager.listTools().map((tool) => tool.name)).toContain(research);
    const statuses: string[] = [];
    const outcome = await manager.callTool(
      research,
      { topic: 'rainfall in Tokyo' },
      { onProgress: (update) => statuses.push(update.message ?? '') },
    );
    // Before: every call failed with "requires task-based execution".
    expect(outcome.isError).toBe(false);
    expect(outcome.text).toContain('rainfall in Tokyo');
    expect(statuses.length).toBeGreaterThan(0);
  }, 30_000);

  it('a task-required tool of a server that runs no tasks is never offered', () => {
    const connection = {
      kind: 'mcp',
      config: nodeServer('old', 'server.js'),
      tools: [
        { name: 'needs_task', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } },
        { name: 'may_task', inputSchema: { type: 'object' }, execution: { taskSupport: 'optional' } },
        { name: 'plain', inputSchema: { type: 'object' } },
      ],
    } as unknown as Connection;
    expect(visibleTools(connection).map((tool) => tool.name)).toEqual(['may_task', 'plain']);
  });

  it('an aborted task call is cancelled', async () => {
    const manager = await pool.connect([nodeServer('everything', everythingEntry, ['stdio'])]);
    const controller = new AbortController();
    const call = manager.callTool(research, { topic: 'x' }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 500);
    await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
  }, 30_000);
});
