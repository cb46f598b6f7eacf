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

/**
 * Runs a tool call as a task (the 2025-11-25 revision's tasks, which the SDK v2 carries only as wire
 * vocabulary): the server creates the task, the host polls `tasks/get` at the interval the server asks for
 * until the task needs input or ends, then reads its result with `tasks/result` (which also carries any
 * request the task makes of the person). Each status is reported like progress (it restarts the call's
 * deadline and shows its message); when the caller aborts, the task is cancelled on the server.
 */
export async function callAsTask(
  client: Client,
  params: { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> },
  call: RequestOptions,
  request: Pick<InFlightRequest, 'progressed'>,
): Promise<RawToolResult> {
  let taskId: string | undefined;
  let updates = 0;
  const cancel = () => {
    if (taskId)
      void client
        .request({ method: 'tasks/cancel', params: { taskId } }, CancelTaskResultSchema)
        .catch(() => {
          // The task may have ended meanwhile: nothing left to cancel.
        });
  };
  call.signal?.addEventListener('abort', cancel, { once: true });
  try {
    const created = await client.request(
      { method: 'tools/call', params: { ...params, task: {} } },
      CreateTaskResultSchema,
      call,
    );
    let task = created.task;
    taskId = task.taskId;
    for (;;) {
      updates += 1;
      request.progressed({ progress: updates, message: task.statusMessage ?? task.status });
      if (task.status !== 'working') break;
      // An abort ends the wait at once; the next line then throws the abort's reason.
      await delay(Math.min(task.pollInterval ?? defaultPollMs, longestPollMs), undefined, {
        signal: call.signal,
      }).catch(() => undefined);
      call.signal?.throwIfAborted();
      task = await client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema, call);
    }
    if (task.status === 'cancelled') throw new Error(`the server cancelled the task ${taskId}`);
    return (await client.request(
      { method: 'tasks/result', params: { taskId } },
      CallToolResultSchema,
      call,
    )) as RawToolResult;
  } finally {
    call.signal?.removeEventListener('abort', cancel);
  }
}
