import { startTaskServer, type TaskServer } from '@ai-assistant/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import type { Connection } from '../src/mcp/connection.js';
import { visibleTools } from '../src/mcp/tool-index.js';
import { everythingEntry, managerPool, nodeServer, remoteServer } from './helpers.js';

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

describe('#47 tasks that outlive the call', () => {
  const pool = managerPool();
  let server: TaskServer | undefined;
  afterEach(async () => {
    await pool.closeAll();
    server?.close();
    server = undefined;
  });

  it('a detached task goes on on the server; a later follow (a new connection) gets its result, or cancels it', async () => {
    server = await startTaskServer();
    const running = server;
    const first = await pool.connect([remoteServer('research', 'http', running.url)]);
    const tool = 'mcp__research__long_report';
    const detach = new AbortController();
    const call = first.callTool(tool, { topic: 'rain in Tokyo' }, { detach: detach.signal });
    const taskId = await running.created();
    detach.abort();
    const detached = await call;
    // Before: a call stopped at the deadline was cancelled with it; now it is named and left working.
    expect(detached.task).toEqual({ taskId, status: 'working' });
    expect(detached.text).toContain('goes on as a background task');
    expect(running.tasks.get(taskId)?.status).toBe('working');
    await first.close();

    // Another manager (a restarted bot, another replica) follows it over a new session.
    const second = await pool.connect([remoteServer('research', 'http', running.url)]);
    const still = await second.callTool(tool, {}, { followTask: { taskId, waitMs: 200 } });
    expect(still.task).toEqual({ taskId, status: 'working' });
    running.complete(taskId);
    const done = await second.callTool(tool, {}, { followTask: { taskId, waitMs: 5000 } });
    expect(done.task).toBeUndefined();
    expect(done.text).toContain('report on rain in Tokyo: done');

    const other = second.callTool(tool, { topic: 'snow' }, { detach: AbortSignal.timeout(300) });
    const otherId = (await other).task?.taskId ?? '';
    const cancelled = await second.callTool(tool, {}, { followTask: { taskId: otherId, cancel: true } });
    expect(cancelled.task).toEqual({ taskId: otherId, status: 'cancelled' });
    expect(running.tasks.get(otherId)?.status).toBe('cancelled');
  }, 30_000);
});
