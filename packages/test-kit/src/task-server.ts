// A loopback Streamable HTTP MCP server (revision 2025-11-25) whose tool runs as a task that outlives
// its client: tasks are kept by the server process, not by a session, so a host that restarts (a new
// session) can still follow one. Built on the SDK v2 server, which carries tasks only as wire
// vocabulary: `tasks/*` are registered with their own schemas, and `tools/call` answers a task-augmented
// call with its CreateTaskResult (a subclass lets that result through the server's tools/call check).
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { Server } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { listenOnLoopback } from './ports.js';
import { jsonOf } from './token-server.js';

type TaskStatus = 'working' | 'completed' | 'failed' | 'cancelled';

interface HeldTask {
  status: TaskStatus;
  topic: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** The bearer token of the call that created it (a task is its creator's). */
  owner: string | undefined;
}

/** A running {@link startTaskServer}. */
export interface TaskServer {
  url: string;
  /** Every task created, by id. */
  tasks: Map<string, HeldTask>;
  /** Resolves with the id of the next task created (or the latest, when one was created already). */
  created(): Promise<string>;
  /** Ends a task with its report (`report on <topic>`). */
  complete(taskId: string): void;
  /** The next `count` `tasks/get` fail (as a server that is restarting answers); resolves when they have. */
  failGets(count: number): Promise<void>;
  close(): void;
}

/** The server's tool result for a task-augmented call; the SDK's tools/call check is for plain results. */
export class TaskAwareServer extends Server {
  protected override _wrapHandler(
    method: string,
    handler: Parameters<Server['_wrapHandler']>[1],
  ): ReturnType<Server['_wrapHandler']> {
    return method === 'tools/call' ? handler : super._wrapHandler(method, handler);
  }
}

const taskIdParams = z.object({ taskId: z.string() }).passthrough();

/**
 * Starts the task server: one tool, `long_report(topic)` (`execution.taskSupport: "required"`), whose
 * tasks stay `working` until the test calls `complete`. `tasks/get`, `tasks/result` and `tasks/cancel`
 * answer for the token that created the task only.
 */
export async function startTaskServer(): Promise<TaskServer> {
  const tasks = new Map<string, HeldTask>();
  let latest: string | undefined;
  const waiters: Array<(id: string) => void> = [];
  let failing = 0;
  const failed: Array<() => void> = [];
  const view = (taskId: string, task: HeldTask) => ({
    taskId,
    status: task.status,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttl: 3_600_000,
    pollInterval: 100,
    ...(task.status === 'working' ? { statusMessage: `researching ${task.topic}` } : {}),
  });
  const http = createServer(async (request, response) => {
    const body = request.method === 'POST' ? await jsonOf(request) : undefined;
    const owner = request.headers.authorization;
    const server = new TaskAwareServer(
      { name: 'tasks', version: '1.0.0' },
      { capabilities: { tools: {}, tasks: { requests: { tools: { call: {} } }, cancel: {} } } },
    );
    const own = (taskId: string) => {
      const task = tasks.get(taskId);
      if (!task || task.owner !== owner) throw new Error(`unknown task ${taskId}`);
      return task;
    };
    server.setRequestHandler('tools/list', async () => ({
      tools: [
        {
          name: 'long_report',
          description: 'Writes a long research report on a topic (runs as a background task)',
          inputSchema: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] },
          annotations: { readOnlyHint: true },
          execution: { taskSupport: 'required' },
        },
      ],
    }));
    server.setRequestHandler('tools/call', async (call) => {
      const params = call.params as { arguments?: { topic?: unknown }; task?: unknown };
      if (!params.task) throw new Error('long_report runs as a task only');
      const taskId = randomUUID();
      const now = new Date().toISOString();
      const task: HeldTask = {
        status: 'working',
        topic: String(params.arguments?.topic ?? ''),
        createdAt: now,
        lastUpdatedAt: now,
        owner,
      };
      tasks.set(taskId, task);
      latest = taskId;
      for (const waiter of waiters.splice(0)) waiter(taskId);
      return { task: view(taskId, task) } as never;
    });
    server.setRequestHandler('tasks/get', { params: taskIdParams }, async ({ taskId }) => {
      if (failing > 0) {
        failing--;
        if (failing === 0) for (const done of failed.splice(0)) done();
        throw new Error('the research backend is restarting');
      }
      return view(taskId, own(taskId));
    });
    server.setRequestHandler('tasks/cancel', { params: taskIdParams }, async ({ taskId }) => {
      const task = own(taskId);
      if (task.status === 'working') {
        task.status = 'cancelled';
        task.lastUpdatedAt = new Date().toISOString();
      }
      return view(taskId, task);
    });
    server.setRequestHandler('tasks/result', { params: taskIdParams }, async ({ taskId }) => {
      const task = own(taskId);
      if (task.status !== 'completed') throw new Error(`task ${taskId} is ${task.status}`);
      return {
        content: [{ type: 'text', text: `report on ${task.topic}: done` }],
        _meta: { 'io.modelcontextprotocol/related-task': { taskId } },
      };
    });
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    response.on('close', () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  });
  const base = await listenOnLoopback(http);
  return {
    url: `${base}/mcp`,
    tasks,
    created: () =>
      latest ? Promise.resolve(latest) : new Promise<string>((resolve) => waiters.push(resolve)),
    failGets(count) {
      failing = count;
      return new Promise<void>((resolve) => failed.push(resolve));
    },
    complete(taskId) {
      const task = tasks.get(taskId);
      if (!task) throw new Error(`no task ${taskId}`);
      task.status = 'completed';
      task.lastUpdatedAt = new Date().toISOString();
    },
    close() {
      http.closeAllConnections();
      http.close();
    },
  };
}
