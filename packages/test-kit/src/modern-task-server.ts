// A loopback MCP server that speaks 2026-07-28 only (stateless, the SDK's `createMcpHandler` with
// `legacy: 'reject'`) and runs tools as tasks of the tasks extension (`io.modelcontextprotocol/tasks`,
// revision 2026-07-28 of the extension's specification): a task-backed `tools/call` answers
// `resultType: "task"`, and `tasks/get`, `tasks/update` and `tasks/cancel` follow it. The SDK v2 carries
// none of this, so the extension's methods are registered with their own schemas, and the task server's
// subclass lets a task result through the server's tools/call check. Tasks live in the server process,
// not a session.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, ProtocolError } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';
import { listenOnLoopback } from './ports.js';
import { TaskAwareServer } from './task-server.js';
import { jsonOf } from './token-server.js';

/** The extension's identifier, in capabilities and in each request's `_meta` envelope. */
export const tasksExtensionId = 'io.modelcontextprotocol/tasks';

type Status = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A task the server holds. */
export interface ModernTask {
  tool: string;
  topic: string;
  status: Status;
  createdAt: string;
  lastUpdatedAt: string;
  /** How many `tasks/get` have read it. */
  reads: number;
  /** What `tasks/update` brought, by input key. */
  answers: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
  /** Its questions while `input_required` (a survey's is whether to share it). */
  inputRequests?: Record<string, unknown>;
}

/** One request the server received. */
export interface ModernTaskRequest {
  method: string;
  /** The request's `Mcp-Name` header (the task's id on `tasks/*`, the tool on `tools/call`). */
  name: string | undefined;
  protocolVersion: string | undefined;
  /** Whether the request's own capabilities declared the tasks extension. */
  declared: boolean;
  /** The `requestState` a retried request echoed, if any. */
  requestState?: string;
  /** The request's `Mcp-Param-Topic` header, if any. */
  topicHeader?: string;
  /** The request's `Authorization` header, if any. */
  authorization?: string;
}

/** A running {@link startModernTaskServer}. */
export interface ModernTaskServer {
  url: string;
  tasks: Map<string, ModernTask>;
  requests: ModernTaskRequest[];
  /** Resolves with the id of the task on `topic`, once one is created. */
  taskOn(topic: string): Promise<string>;
  /** Ends a `archive` task with its result. */
  complete(taskId: string): void;
  close(): void;
}

const missingCapability = () =>
  new ProtocolError(-32021, 'Missing required client capability', {
    requiredCapabilities: { extensions: { [tasksExtensionId]: {} } },
  });

const consentRequest = (topic: string) => ({
  method: 'elicitation/create',
  params: {
    mode: 'form',
    message: `Share the survey on ${topic} with the team?`,
    requestedSchema: {
      type: 'object',
      properties: { share: { type: 'boolean', title: 'Share' } },
      required: ['share'],
    },
  },
});

/** The server's state and its factory (one Server per request over HTTP, one per process over stdio). */
function taskServers(lastAuthorization: () => string | undefined) {
  const tasks = new Map<string, ModernTask>();
  const waiters: Array<{ topic: string; resolve: (id: string) => void }> = [];
  const idOn = (topic: string) => [...tasks.entries()].find(([, task]) => task.topic === topic)?.[0];
  const touch = (task: ModernTask, status: Status) => {
    task.status = status;
    task.lastUpdatedAt = new Date().toISOString();
  };
  const view = (taskId: string, task: ModernTask) => ({
    taskId,
    status: task.status,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: 3_600_000,
    pollIntervalMs: task.tool === 'pester' ? 0 : 50,
    ...(task.status === 'working'
      ? { statusMessage: `${task.tool}: working on ${task.topic} (task ${taskId})` }
      : {}),
    ...(task.status === 'input_required'
      ? { inputRequests: task.inputRequests ?? { share: consentRequest(task.topic) } }
      : {}),
    ...(task.status === 'completed' ? { result: task.result } : {}),
    ...(task.status === 'failed' ? { error: task.error } : {}),
  });
  const declared = (meta: unknown) => {
    const capabilities = (meta as Record<string, { extensions?: Record<string, unknown> }> | undefined)?.[
      'io.modelcontextprotocol/clientCapabilities'
    ];
    return capabilities?.extensions?.[tasksExtensionId] !== undefined;
  };
  const taskParams = z.object({ taskId: z.string() }).passthrough();
  const known = (taskId: string) => {
    const task = tasks.get(taskId);
    if (!task) throw new ProtocolError(-32602, `Failed to retrieve task: Task ${taskId} not found`);
    return task;
  };

  const newServer = () => {
    const server = new TaskAwareServer(
      { name: 'modern-tasks', version: '1.0.0' },
      { capabilities: { tools: {}, extensions: { [tasksExtensionId]: {} } } },
    );
    server.setRequestHandler('tools/list', async () => ({
      tools: [
        'survey',
        'archive',
        'broken',
        'vote',
        'pester',
        'garbage',
        'leaky',
        'rainfall',
        'steps',
        'quick',
      ].map((name) => ({
        name,
        description:
          name === 'quick'
            ? 'Answers at once'
            : `Runs a ${name} on a topic as a background task (2026-07-28 tasks extension)`,
        inputSchema: {
          type: 'object' as const,
          properties: (name === 'quick'
            ? { text: { type: 'string' } }
            : // The topic is mirrored in a header (`Mcp-Param-Topic`), as 2026-07-28 lets a tool ask.
              { topic: { type: 'string', 'x-mcp-header': 'Topic' } }) as Record<
            string,
            Record<string, string>
          >,
        },
        annotations: { readOnlyHint: true },
        ...(name === 'rainfall'
          ? {
              outputSchema: {
                type: 'object' as const,
                properties: { mm: { type: 'number' } },
                required: ['mm'],
              },
            }
          : {}),
      })),
    }));
    server.setRequestHandler('tools/call', async (call, ctx) => {
      const params = call.params as { name: string; arguments?: Record<string, unknown> };
      if (params.name === 'quick')
        return { content: [{ type: 'text', text: `quick: ${String(params.arguments?.text ?? '')}` }] };
      if (params.name === 'steps') {
        // Two questions in turn under the same key, as a wizard asks (no task).
        const answer = (ctx.mcpReq.inputResponses?.input as { content?: Record<string, string> } | undefined)
          ?.content;
        if (answer?.second !== undefined)
          return { content: [{ type: 'text', text: `steps done: ${answer.second}` }] };
        const step = answer?.first === undefined ? 'first' : 'second';
        return {
          resultType: 'input_required',
          inputRequests: {
            input: {
              method: 'elicitation/create',
              params: {
                mode: 'form',
                message: step === 'first' ? 'Step 1?' : 'Step 2?',
                requestedSchema: {
                  type: 'object',
                  properties: { [step]: { type: 'string' } },
                  required: [step],
                },
              },
            },
          },
        } as never;
      }
      if (!declared(ctx.mcpReq.envelope)) throw missingCapability();
      const topic = String(params.arguments?.topic ?? '');
      // A vote asks first (a multi round-trip request on tools/call itself), then makes a task that
      // is complete at once: its result is read with tasks/get.
      const ballot = ctx.mcpReq.inputResponses?.ballot as {
        action?: string;
        content?: { choice?: string };
      };
      if (params.name === 'vote' && !ballot)
        return {
          resultType: 'input_required',
          inputRequests: {
            ballot: {
              method: 'elicitation/create',
              params: {
                mode: 'form',
                message: `Your vote on ${topic}?`,
                requestedSchema: {
                  type: 'object',
                  properties: { choice: { type: 'string', enum: ['yes', 'no'] } },
                  required: ['choice'],
                },
              },
            },
          },
          requestState: `ballot:${topic}`,
        } as never;
      const now = new Date().toISOString();
      const task: ModernTask = {
        tool: params.name,
        topic,
        status: 'working',
        createdAt: now,
        lastUpdatedAt: now,
        reads: 0,
        answers: {},
      };
      if (params.name === 'vote') {
        task.status = 'completed';
        task.result = { content: [{ type: 'text', text: `vote on ${topic}: ${ballot?.content?.choice}` }] };
      }
      if (params.name === 'rainfall') {
        // Structured content that matches the declared output schema, except for the topic "wrong".
        task.status = 'completed';
        const mm = topic === 'wrong' ? 'a lot' : 12.5;
        task.result = {
          content: [{ type: 'text', text: `rainfall in ${topic}: ${mm}` }],
          structuredContent: { mm },
        };
      }
      if (params.name === 'garbage') {
        task.status = 'completed';
        task.result = { content: [{ type: 'image', data: 5 }] };
      }
      if (params.name === 'leaky') {
        task.status = 'input_required';
        task.inputRequests = {
          share: {
            ...consentRequest(task.topic),
            params: {
              ...consentRequest(task.topic).params,
              message: `Share it? (you sent ${lastAuthorization()})`,
            },
          },
        };
      }
      if (params.name === 'broken') {
        task.status = 'failed';
        task.error = { code: -32603, message: `the ${task.topic} archive is offline` };
      }
      const taskId = randomUUID();
      tasks.set(taskId, task);
      for (const waiter of waiters.filter((waiting) => waiting.topic === task.topic)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(taskId);
      }
      return { resultType: 'task', ...view(taskId, task) } as never;
    });
    server.setRequestHandler('tasks/get', { params: taskParams }, async ({ taskId }, ctx) => {
      if (!declared(ctx.mcpReq.envelope)) throw missingCapability();
      const task = known(taskId);
      task.reads++;
      // A survey works for one poll, then asks its question.
      if (task.tool === 'survey' && task.status === 'working' && task.reads > 1)
        touch(task, 'input_required');
      // A pester task asks a new question on every read, and asks to be read again at once.
      if (task.tool === 'pester' && task.status !== 'cancelled') {
        task.inputRequests = { [`q${task.reads}`]: consentRequest(`${task.topic} #${task.reads}`) };
        touch(task, 'input_required');
      }
      return { resultType: 'complete', ...view(taskId, task) } as never;
    });
    server.setRequestHandler('tasks/update', { params: taskParams }, async ({ taskId }, ctx) => {
      // The SDK lifts `inputResponses` off the params (the wire's multi round-trip field).
      const inputResponses = ctx.mcpReq.inputResponses ?? {};
      if (!declared(ctx.mcpReq.envelope)) throw missingCapability();
      const task = known(taskId);
      Object.assign(task.answers, inputResponses);
      const answer = inputResponses.share as { action?: string; content?: { share?: boolean } } | undefined;
      if (task.status === 'input_required' && answer) {
        const shared = answer.action === 'accept' && answer.content?.share === true;
        task.result = {
          content: [{ type: 'text', text: `survey on ${task.topic}: ${shared ? 'shared' : 'kept private'}` }],
        };
        touch(task, 'completed');
      }
      return { resultType: 'complete' } as never;
    });
    server.setRequestHandler('tasks/cancel', { params: taskParams }, async ({ taskId }, ctx) => {
      if (!declared(ctx.mcpReq.envelope)) throw missingCapability();
      const task = known(taskId);
      if (task.status === 'working' || task.status === 'input_required') touch(task, 'cancelled');
      return { resultType: 'complete' } as never;
    });
    return server;
  };
  return { tasks, waiters, idOn, declared, touch, newServer };
}

/**
 * Starts the server on loopback HTTP (2026-07-28 only, stateless). Tools:
 * - `survey(topic)`: a task that works for one poll, then asks the person (an elicitation in
 *   `inputRequests`) whether to share it, and completes with the answer;
 * - `archive(topic)`: a task that stays `working` until the test calls `complete`, or is cancelled;
 * - `broken(topic)`: a task that fails with a JSON-RPC error;
 * - `pester(topic)`: a task that asks a new question on every poll and asks to be polled at once;
 * - `garbage(topic)`: a task complete at once with a result that is not a tool result;
 * - `rainfall(topic)`: a task complete at once whose structured content matches its output schema,
 *   except for the topic `wrong`;
 * - `leaky(topic)`: a task whose question repeats the `Authorization` header the server was sent;
 * - `vote(topic)`: asks first (`input_required` on the call itself, with a `requestState` the retry must
 *   echo), then answers with a task that is complete at once;
 * - `steps(topic)`: asks two questions in turn under the same key (`input_required`), then answers;
 * - `quick(text)`: answers at once, a plain result, whatever the client declared.
 * A task tool called by a client that did not declare the extension is refused with -32021, as are
 * `tasks/*` requests without it; an unknown task id is -32602.
 */
export async function startModernTaskServer(): Promise<ModernTaskServer> {
  const requests: ModernTaskRequest[] = [];
  let lastAuthorization: string | undefined;
  const { tasks, waiters, idOn, declared, touch, newServer } = taskServers(() => lastAuthorization);
  const handler = createMcpHandler(newServer, { legacy: 'reject' });
  const serve = toNodeHandler(handler);
  const http = createServer(async (request, response) => {
    const body = request.method === 'POST' ? await jsonOf(request) : undefined;
    lastAuthorization = request.headers.authorization;
    const message = body as
      | { method?: string; params?: { _meta?: unknown; requestState?: string } }
      | undefined;
    if (message?.method)
      requests.push({
        method: message.method,
        name: request.headers['mcp-name'] as string | undefined,
        protocolVersion: request.headers['mcp-protocol-version'] as string | undefined,
        declared: declared(message.params?._meta),
        ...(message.params?.requestState ? { requestState: message.params.requestState } : {}),
        ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}),
        ...(request.headers['mcp-param-topic']
          ? { topicHeader: request.headers['mcp-param-topic'] as string }
          : {}),
      });
    void serve(request, response, body);
  });
  const base = await listenOnLoopback(http);
  return {
    url: `${base}/mcp`,
    tasks,
    requests,
    taskOn: (topic) => {
      const known = idOn(topic);
      return known
        ? Promise.resolve(known)
        : new Promise<string>((resolve) => waiters.push({ topic, resolve }));
    },
    complete(taskId) {
      const task = tasks.get(taskId);
      if (!task) throw new Error(`no task ${taskId}`);
      task.result = { content: [{ type: 'text', text: `archive of ${task.topic}: done` }] };
      touch(task, 'completed');
    },
    close() {
      http.closeAllConnections();
      http.close();
    },
  };
}

/** Where this module lives: `node <modernTaskServerPath>` serves the same tools over stdio (both eras). */
export const modernTaskServerPath = fileURLToPath(import.meta.url);

if (process.argv[1] === modernTaskServerPath) serveStdio(taskServers(() => undefined).newServer);
