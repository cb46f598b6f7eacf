import {
  type ModernTaskServer,
  modernTaskServerPath,
  ScriptedProvider,
  startModernTaskServer,
  toolMessage,
} from '@ai-assistant/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ChatService } from '../src/chat/chat-service.js';
import type { ElicitationRequest } from '../src/tool-host.js';
import { managerPool, nodeServer, remoteServer } from './helpers.js';

// The tasks extension of MCP 2026-07-28 (`io.modelcontextprotocol/tasks`): a 2026-only server (the
// SDK's createMcpHandler, stateless) that answers tool calls with tasks, followed with tasks/get,
// answered with tasks/update, cancelled with tasks/cancel.
describe('2026-07-28 tasks extension', () => {
  let server: ModernTaskServer;
  const pool = managerPool();
  beforeAll(async () => {
    server = await startModernTaskServer();
  });
  afterEach(() => pool.closeAll());
  afterAll(() => server?.close());

  const connect = () => pool.connect([remoteServer('jobs', 'http', server.url, { approval: 'auto' })]);
  const since = (from: number) => server.requests.slice(from);

  it('a task tool runs in a turn: the question inside the task reaches the person once, the result comes inline', async () => {
    const manager = await connect();
    expect(manager.status()[0]).toMatchObject({ state: 'connected', protocolVersion: '2026-07-28' });
    expect(manager.listTools().map((tool) => tool.name)).toEqual([
      'mcp__jobs__survey',
      'mcp__jobs__archive',
      'mcp__jobs__broken',
      'mcp__jobs__vote',
      'mcp__jobs__pester',
      'mcp__jobs__garbage',
      'mcp__jobs__leaky',
      'mcp__jobs__rainfall',
      'mcp__jobs__steps',
      'mcp__jobs__quick',
    ]);
    const from = server.requests.length;
    const asked: ElicitationRequest[] = [];
    const statuses: string[] = [];
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'call_1', name: 'mcp__jobs__survey', arguments: { topic: 'rain' } }] },
      (call) => ({ text: `tool said: ${toolMessage(call, 'call_1')?.content}` }),
    ]);
    const chat = new ChatService({ provider, tools: manager });
    const result = await chat.respond({
      history: [],
      userMessage: 'run the survey',
      onEvent: (event) => {
        if (event.type === 'tool_progress' && event.message) statuses.push(event.message);
      },
      elicit: async (request) => {
        asked.push(request);
        return { action: 'accept', content: { share: true } };
      },
    });
    // Before: the SDK refused the task result ("Unsupported result type 'task'"), so the call failed.
    expect(result.text).toBe('tool said: survey on rain: shared');
    expect(asked).toEqual([
      expect.objectContaining({
        server: 'jobs',
        mode: 'form',
        message: 'Share the survey on rain with the team?',
      }),
    ]);
    expect(statuses.some((status) => status.startsWith('survey: working on rain (task '))).toBe(true);
    const methods = since(from).map((request) => request.method);
    expect(methods[0]).toBe('tools/call');
    expect(methods).toContain('tasks/update');
    expect(methods.at(-1)).toBe('tasks/get');
    const taskId = await server.taskOn('rain');
    for (const request of since(from)) {
      // Every request declared the extension and carried the revision; tasks/* are routed by task id.
      expect(request).toMatchObject({ declared: true, protocolVersion: '2026-07-28' });
      if (request.method.startsWith('tasks/')) expect(request.name).toBe(taskId);
    }
    expect(server.tasks.get(taskId)?.answers).toEqual({
      share: { action: 'accept', content: { share: true } },
    });
  });

  it('a plain result comes back as it is; a failed task is an error the model can read', async () => {
    const manager = await connect();
    const quick = await manager.callTool('mcp__jobs__quick', { text: 'hello' });
    expect(quick).toMatchObject({ isError: false, text: 'quick: hello' });
    const broken = manager.callTool('mcp__jobs__broken', { topic: 'tide' });
    await expect(broken).rejects.toThrow(/the tide archive is offline/);
  });

  it('a call that asks before it makes a task: the answer and the state go back with the retry; the task complete at once is read', async () => {
    const manager = await connect();
    const from = server.requests.length;
    const asked: string[] = [];
    const outcome = await manager.callTool(
      'mcp__jobs__vote',
      { topic: 'lunch' },
      {
        elicit: async (request) => {
          asked.push(request.message);
          return { action: 'accept', content: { choice: 'yes' } };
        },
      },
    );
    expect(asked).toEqual(['Your vote on lunch?']);
    expect(outcome).toMatchObject({ isError: false, text: 'vote on lunch: yes' });
    expect(since(from).map((request) => [request.method, request.requestState])).toEqual([
      ['tools/call', undefined],
      ['tools/call', 'ballot:lunch'],
      ['tasks/get', undefined],
    ]);
  });

  it('a call that asks again under the same key is asked again (each round answers all its questions)', async () => {
    const manager = await connect();
    const asked: string[] = [];
    const outcome = await manager.callTool(
      'mcp__jobs__steps',
      { topic: 'wizard' },
      {
        elicit: async (request) => {
          asked.push(request.message);
          const content: Record<string, string> =
            request.message === 'Step 1?' ? { first: 'a' } : { second: 'b' };
          return { action: 'accept', content };
        },
      },
    );
    // Before: the second question was taken for the first, never asked, and the call gave up after 10 rounds.
    expect(asked).toEqual(['Step 1?', 'Step 2?']);
    expect(outcome.text).toBe('steps done: b');
  });

  it('a follow reads a task that failed, or that the server no longer knows, as ended: a result, not an error to retry', async () => {
    const manager = await connect();
    const detached = await manager.callTool(
      'mcp__jobs__archive',
      { topic: 'ledger' },
      { detach: AbortSignal.abort() },
    );
    const taskId = detached.task?.taskId ?? '';
    expect(detached.task?.status).toBe('working');
    const task = server.tasks.get(taskId);
    if (!task) throw new Error('no task');
    task.status = 'failed';
    task.error = { code: -32603, message: 'the ledger archive is offline' };
    const failed = await manager.callTool('mcp__jobs__archive', {}, { followTask: { taskId, waitMs: 1000 } });
    expect(failed).toMatchObject({ isError: true, task: { taskId, status: 'failed' } });
    expect(failed.text).toContain('the ledger archive is offline');
    const unknown = await manager.callTool(
      'mcp__jobs__archive',
      {},
      { followTask: { taskId: 'no-such-task', waitMs: 1000 } },
    );
    expect(unknown).toMatchObject({ isError: true, task: { taskId: 'no-such-task', status: 'failed' } });
    expect(unknown.text).toContain('no longer knows it');
  });

  it('nobody to ask: the question inside a task is dismissed (cancel), and the task ends with that answer', async () => {
    const manager = await connect();
    const outcome = await manager.callTool('mcp__jobs__survey', { topic: 'snow' });
    expect(outcome.text).toBe('survey on snow: kept private');
  });

  it('an aborted call cancels its task on the server', async () => {
    const manager = await connect();
    const controller = new AbortController();
    const from = server.requests.length;
    const call = manager.callTool('mcp__jobs__archive', { topic: '霧' }, { signal: controller.signal });
    const taskId = await server.taskOn('霧');
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
    await expect.poll(() => server.tasks.get(taskId)?.status).toBe('cancelled');
    // The argument its schema marks with x-mcp-header went as a header too (not ASCII: in base64).
    expect(since(from)[0]).toMatchObject({ method: 'tools/call', topicHeader: '=?base64?6Zyn?=' });
  });

  it('a detached task goes on; a new connection follows it to its result, or cancels it', async () => {
    const first = await connect();
    const tool = 'mcp__jobs__archive';
    const detach = new AbortController();
    const call = first.callTool(tool, { topic: 'hail' }, { detach: detach.signal });
    const taskId = await server.taskOn('hail');
    detach.abort();
    const detached = await call;
    expect(detached.task).toEqual({ taskId, status: 'working' });
    expect(server.tasks.get(taskId)?.status).toBe('working');
    await first.close();

    const second = await connect();
    server.complete(taskId);
    const done = await second.callTool(tool, {}, { followTask: { taskId, waitMs: 5000 } });
    expect(done.task).toBeUndefined();
    expect(done.text).toBe('archive of hail: done');

    const other = second.callTool(tool, { topic: 'sleet' }, { detach: detach.signal });
    const otherId = (await other).task?.taskId ?? '';
    expect(otherId).not.toBe(taskId);
    const cancelled = await second.callTool(tool, {}, { followTask: { taskId: otherId, cancel: true } });
    expect(cancelled.task).toEqual({ taskId: otherId, status: 'cancelled' });
    expect(server.tasks.get(otherId)?.status).toBe('cancelled');
  });

  // What a hostile server may try (each first observed by a review of this path).
  const withToken = () =>
    pool.connect([
      remoteServer('jobs', 'http', server.url, {
        approval: 'auto',
        headers: { Authorization: 'Bearer ${token}' },
      }),
    ]);

  it('a task that keeps asking stops at 10 questions, and is cancelled on the server', async () => {
    const manager = await connect();
    const asked: string[] = [];
    const call = manager.callTool(
      'mcp__jobs__pester',
      { topic: 'nags' },
      {
        elicit: async (request) => {
          asked.push(request.message);
          return { action: 'accept', content: { share: true } };
        },
      },
    );
    // Before: a new question on every poll, polled at once, for as long as the turn lasted.
    await expect(call).rejects.toThrow(/keeps asking \(more than 10 questions in one call\)/);
    expect(asked).toHaveLength(10);
    const taskId = await server.taskOn('nags');
    await expect.poll(() => server.tasks.get(taskId)?.status).toBe('cancelled');
  });

  it('a task result that is not a tool result is an error the model reads', async () => {
    const manager = await connect();
    // Before: a TypeError from the result's formatting ("data.endsWith is not a function").
    await expect(manager.callTool('mcp__jobs__garbage', { topic: 'junk' })).rejects.toMatchObject({
      code: 'TOOL_EXECUTION_FAILED',
      message: expect.stringMatching(/not a tool result/),
    });
  });

  it("a task's structured content is checked against the tool's output schema, as the SDK checks other calls", async () => {
    const manager = await connect();
    expect((await manager.callTool('mcp__jobs__rainfall', { topic: 'Naha' })).text).toContain(
      'rainfall in Naha: 12.5',
    );
    // Before: the SDK's check did not apply to this path, and the mismatch reached the model as a result.
    await expect(manager.callTool('mcp__jobs__rainfall', { topic: 'wrong' })).rejects.toThrow(
      /does not match the tool's output schema/,
    );
  });

  it("the asker's secret a server repeats in its question is hidden from the question", async () => {
    const manager = await withToken();
    const asked: string[] = [];
    const outcome = await manager.callTool(
      'mcp__jobs__leaky',
      { topic: 'keys' },
      {
        tokens: { token: 'tok-hidden-4711' },
        elicit: async (request) => {
          asked.push(request.message);
          return { action: 'decline' };
        },
      },
    );
    expect(outcome.text).toBe('survey on keys: kept private');
    // Before: "Share it? (you sent Bearer tok-hidden-4711)", as the thread would have shown it.
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/^Share it\? \(you sent Bearer /);
    expect(asked[0]).not.toContain('tok-hidden-4711');
  });

  it("a task's cancellation goes with the asker's own credentials, whatever aborted the call", async () => {
    const manager = await withToken();
    const stop = new AbortController();
    const call = manager.callTool(
      'mcp__jobs__archive',
      { topic: 'credentials' },
      { tokens: { token: 'tok-of-the-asker' }, signal: stop.signal },
    );
    const taskId = await server.taskOn('credentials');
    // The host follows the task (it has read it once); the abort comes from outside any request, as a
    // Slack button's handler would abort a turn.
    await expect.poll(() => server.tasks.get(taskId)?.reads).toBeGreaterThan(0);
    stop.abort();
    await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
    await expect
      .poll(() =>
        server.requests.find((request) => request.method === 'tasks/cancel' && request.name === taskId),
      )
      .toBeDefined();
    // Before: tasks/cancel went with no Authorization at all, and the server kept the task running.
    expect(
      server.requests.find((request) => request.method === 'tasks/cancel' && request.name === taskId),
    ).toMatchObject({
      authorization: 'Bearer tok-of-the-asker',
    });
    await expect.poll(() => server.tasks.get(taskId)?.status).toBe('cancelled');
  });
});

// The same server over stdio (its own process, both eras offered): the host asks in 2026-07-28 and
// drives the extension on the process's own stdin and stdout.
describe('2026-07-28 tasks extension over stdio', () => {
  const pool = managerPool();
  afterEach(() => pool.closeAll());

  it('a task with a question completes; a detached one is cancelled through a follow; an aborted one is cancelled', async () => {
    const manager = await pool.connect([
      nodeServer('jobs', modernTaskServerPath, [], { approval: 'auto', protocolVersion: '2026-07-28' }),
    ]);
    expect(manager.status()[0]).toMatchObject({ state: 'connected', protocolVersion: '2026-07-28' });
    const asked: string[] = [];
    const survey = await manager.callTool(
      'mcp__jobs__survey',
      { topic: 'tide' },
      {
        elicit: async (request) => {
          asked.push(request.message);
          return { action: 'accept', content: { share: true } };
        },
      },
    );
    expect(asked).toEqual(['Share the survey on tide with the team?']);
    expect(survey.text).toBe('survey on tide: shared');

    // Detached, then cancelled through a follow: the server's own answer says so.
    const detached = await manager.callTool(
      'mcp__jobs__archive',
      { topic: 'reef' },
      { detach: AbortSignal.abort() },
    );
    const taskId = detached.task?.taskId ?? '';
    expect(detached.task).toEqual({ taskId, status: 'working' });
    const cancelled = await manager.callTool(
      'mcp__jobs__archive',
      {},
      { followTask: { taskId, cancel: true } },
    );
    expect(cancelled.task).toEqual({ taskId, status: 'cancelled' });
    const read = await manager.callTool('mcp__jobs__archive', {}, { followTask: { taskId, waitMs: 1000 } });
    expect(read.task).toEqual({ taskId, status: 'cancelled' });

    // Aborted while the host follows it (its first status heard): cancelled on the server, over stdio
    // through the host's own requests on the process's stdin.
    const stop = new AbortController();
    const status = new Promise<string>((resolve) => {
      void manager
        .callTool(
          'mcp__jobs__archive',
          { topic: 'atoll' },
          { signal: stop.signal, onProgress: (update) => resolve(update.message ?? '') },
        )
        .catch(() => undefined);
    });
    const atoll = /^archive: working on atoll \(task (.+)\)$/.exec(await status)?.[1] ?? '';
    stop.abort();
    await expect
      .poll(
        async () =>
          (await manager.callTool('mcp__jobs__archive', {}, { followTask: { taskId: atoll, waitMs: 0 } }))
            .task,
      )
      .toEqual({ taskId: atoll, status: 'cancelled' });
  });
});
