import type { Client, RequestOptions } from "@modelcontextprotocol/client";
import type { Connection, InFlightRequest } from './connection.js';
import type { RawToolResult } from './format-tool-result.js';
import { runsTasks, taskSupportOf } from './tool-index.js';

/** Whether a call to `tool` runs as a task: the tool needs or allows it, and the server runs tasks. */
export function asTask(connection: Connection, tool: string): boolean {
  if (!runsTasks(connection)) return false;
  const support = taskSupportOf(connection.tools.find((entry) => entry.name === tool));
  return support === 'required' || support === 'optional';
}

/**
 * Runs a tool call as a task (MCP tasks): the server creates it and the SDK polls it to its end. Each
 * status is reported like progress (it restarts the call's deadline and shows its message); when the
 * caller aborts, the task is cancelled on the server.
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
      void client.experimental.tasks.cancelTask(taskId).catch(() => {
        // The task may have ended meanwhile: nothing left to cancel.
      });
  };
  call.signal?.addEventListener('abort', cancel, { once: true });
  try {
    for await (const message of client.experimental.tasks.callToolStream(params, undefined, {
      ...call,
      task: {},
    })) {
      if (message.type === 'taskCreated' || message.type === 'taskStatus') {
        taskId = message.task.taskId;
        updates += 1;
        request.progressed({
          progress: updates,
          message: message.task.statusMessage ?? message.task.status,
        });
      } else if (message.type === 'result') return message.result as RawToolResult;
      else throw message.error;
    }
    throw new Error('the task ended without a result');
  } finally {
    call.signal?.removeEventListener('abort', cancel);
  }
}
