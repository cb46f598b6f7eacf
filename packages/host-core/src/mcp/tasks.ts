import { setTimeout as delay } from 'node:timers/promises';
import type { Client, RequestOptions } from '@modelcontextprotocol/client';
import {
  CallToolResultSchema,
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
} from '@modelcontextprotocol/core';
import type { Connection, InFlightRequest } from './connection.js';
import type { RawToolResult } from './format-tool-result.js';
import { runsTasks, taskSupportOf } from './tool-index.js';

/** Whether a call to `tool` runs as a task: the tool needs or allows it, and the server runs tasks. */
export function asTask(connection: Connection, tool: string): boolean {
  if (!runsTasks(connection)) return false;
  const support = taskSupportOf(connection.tools.find((entry) => entry.name === tool));
  return support === 'required' || support === 'optional';
}

// How often a task is polled when the server names no interval, and the most the host waits between polls.
const defaultPollMs = 500;
const longestPollMs = 5_000;

/** The task a result stands for, when it is not the task's own result (a symbol: no server can forge it). */
export const taskState = Symbol('task state');

/** A result that says where a task stands, carrying {@link taskState}. */
type TaskNote = RawToolResult & { [taskState]?: { taskId: string; status: string } };

function taskNote(taskId: string, status: string, text: string, isError = false): TaskNote {
  const note: TaskNote = { content: [{ type: 'text', text }], isError };
  note[taskState] = { taskId, status };
  return note;
}

/**
 * Polls a task at the interval the server asks for until it needs input or ends (its result read with
 * `tasks/result`, which also carries any request the task makes of the person), or `until` fires: then
 * it answers that the task still works. Each status is reported like progress (it restarts the call's
 * deadline and shows its message).
 */
async function pollTask(
  client: Client,
  first: { taskId: string; status: string; statusMessage?: string; pollInterval?: number },
  call: RequestOptions,
  request: Pick<InFlightRequest, 'progressed'>,
  until: AbortSignal | undefined,
): Promise<TaskNote> {
  let task = first;
  const taskId = task.taskId;
  for (let updates = 1; ; updates++) {
    request.progressed({ progress: updates, message: task.statusMessage ?? task.status });
    if (task.status !== 'working') break;
    const stop = until ? AbortSignal.any([until, ...(call.signal ? [call.signal] : [])]) : call.signal;
    // An abort ends the wait at once; the next lines then stop (detached) or throw the abort's reason.
    await delay(Math.min(task.pollInterval ?? defaultPollMs, longestPollMs), undefined, {
      signal: stop,
    }).catch(() => undefined);
    call.signal?.throwIfAborted();
    if (until?.aborted)
      return taskNote(
        taskId,
        'working',
        `The tool goes on as a background task (${taskId}); its result is posted when it completes.`,
      );
    task = await client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema, call);
  }
  if (task.status === 'cancelled')
    return taskNote(taskId, 'cancelled', `The task ${taskId} was cancelled.`, true);
  return (await client.request(
    { method: 'tasks/result', params: { taskId } },
    CallToolResultSchema,
    call,
  )) as RawToolResult;
}

/**
 * Runs a tool call as a task (the 2025-11-25 revision's tasks, which the SDK v2 carries only as wire
 * vocabulary): the server creates the task and the host polls it to its end. When the caller aborts,
 * the task is cancelled on the server; when `detach` fires, the host stops waiting and the task goes on
 * (the result names it: {@link taskState}).
 */
export async function callAsTask(
  client: Client,
  params: { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> },
  call: RequestOptions,
  request: Pick<InFlightRequest, 'progressed'>,
  detach?: AbortSignal,
): Promise<RawToolResult> {
  let taskId: string | undefined;
  const cancel = () => {
    if (taskId) void cancelTask(client, taskId);
  };
  call.signal?.addEventListener('abort', cancel, { once: true });
  try {
    const created = await client.request(
      { method: 'tools/call', params: { ...params, task: {} } },
      CreateTaskResultSchema,
      call,
    );
    taskId = created.task.taskId;
    return await pollTask(client, created.task, call, request, detach);
  } finally {
    call.signal?.removeEventListener('abort', cancel);
  }
}

/** Cancels a task on the server; one that ended meanwhile has nothing left to cancel. */
function cancelTask(client: Client, taskId: string): Promise<unknown> {
  return client
    .request({ method: 'tasks/cancel', params: { taskId } }, CancelTaskResultSchema)
    .catch(() => undefined);
}

/**
 * Follows a task an earlier call left running: polls it for up to `waitMs`, then its result, or a note
 * that it still works; with `cancel`, cancels it instead.
 */
export async function followTask(
  client: Client,
  follow: { taskId: string; cancel?: boolean; waitMs?: number },
  call: RequestOptions,
  request: Pick<InFlightRequest, 'progressed'>,
): Promise<RawToolResult> {
  if (follow.cancel) {
    await client.request(
      { method: 'tasks/cancel', params: { taskId: follow.taskId } },
      CancelTaskResultSchema,
      call,
    );
    return taskNote(follow.taskId, 'cancelled', `The task ${follow.taskId} was cancelled.`, true);
  }
  const task = await client.request(
    { method: 'tasks/get', params: { taskId: follow.taskId } },
    GetTaskResultSchema,
    call,
  );
  return pollTask(client, task, call, request, AbortSignal.timeout(follow.waitMs ?? 10_000));
}
