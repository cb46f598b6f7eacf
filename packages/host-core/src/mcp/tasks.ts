import { AsyncResource } from 'node:async_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import {
  type Client,
  ProtocolError,
  ProtocolErrorCode,
  type RequestOptions,
} from '@modelcontextprotocol/client';
import {
  CallToolResultSchema,
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
} from '@modelcontextprotocol/core';
import type { Connection, InFlightRequest } from './connection.js';
import type { RawToolResult } from './format-tool-result.js';
import { type ElicitParams, elicitFor, sampleFor } from './server-requests.js';
import { type ExtensionRequests, InvalidResult, invalidResult, paramHeaders } from './task-extension.js';
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
/** A server asking to be polled more often than this is polled this often. */
const shortestPollMs = 100;

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
 * Waits the interval the server asks for (capped) before the next poll. An abort ends the wait at once
 * and throws its reason; `until` firing ends it with a note that the task goes on (detached).
 */
async function untilNextPoll(
  taskId: string,
  intervalMs: number | undefined,
  call: RequestOptions,
  until: AbortSignal | undefined,
): Promise<TaskNote | undefined> {
  // Either signal ends the wait; listeners, not AbortSignal.any, so that nothing outlives the wait.
  const stop = new AbortController();
  const end = () => stop.abort();
  for (const signal of [until, call.signal]) signal?.addEventListener('abort', end, { once: true });
  if (until?.aborted || call.signal?.aborted) end();
  const waitMs = Math.min(Math.max(intervalMs ?? defaultPollMs, shortestPollMs), longestPollMs);
  await delay(waitMs, undefined, { signal: stop.signal }).catch(() => undefined);
  for (const signal of [until, call.signal]) signal?.removeEventListener('abort', end);
  call.signal?.throwIfAborted();
  if (!until?.aborted) return undefined;
  return taskNote(
    taskId,
    'working',
    `The tool goes on as a background task (${taskId}); its result is posted when it completes.`,
  );
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
  mode: FollowMode = 'turn',
): Promise<TaskNote> {
  let task = first;
  const taskId = task.taskId;
  for (let updates = 1; ; updates++) {
    request.progressed({ progress: updates, message: task.statusMessage ?? task.status });
    if (task.status !== 'working') break;
    const detached = await untilNextPoll(taskId, task.pollInterval, call, until);
    if (detached) return detached;
    task = await client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema, call);
  }
  if (task.status === 'cancelled')
    return taskNote(taskId, 'cancelled', `The task ${taskId} was cancelled.`, true);
  try {
    return (await client.request(
      { method: 'tasks/result', params: { taskId } },
      CallToolResultSchema,
      call,
    )) as RawToolResult;
  } catch (error) {
    // The task ended with an error: for a follow, that is its end, not a failure to look again.
    if (mode === 'follow' && error instanceof ProtocolError && !call.signal?.aborted)
      return endedBadly(taskId, error.message);
    throw error;
  }
}

/**
 * Who follows a task: a turn (the person waits; a task the host stops following is cancelled) or a
 * follow of a task left running (`followTask`: a task that ended badly is a result that says so, and
 * a request that failed on the way leaves the task to the next follow).
 */
type FollowMode = 'turn' | 'follow';

/** A task that ended without a result, as a follow reads it. */
const endedBadly = (taskId: string, why: string): TaskNote =>
  taskNote(taskId, 'failed', `The task ${taskId} ended without a result: ${why}`, true);

/** A follow's first look at a task the server no longer knows (-32602): it has ended, for good. */
function unknownTask(error: unknown, taskId: string, signal: AbortSignal | undefined): TaskNote {
  if (error instanceof ProtocolError && error.code === ProtocolErrorCode.InvalidParams && !signal?.aborted)
    return endedBadly(taskId, `the server no longer knows it (${error.message})`);
  throw error;
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
  let task: Awaited<ReturnType<typeof readTask>>;
  try {
    task = await readTask(client, follow.taskId, call);
  } catch (error) {
    return unknownTask(error, follow.taskId, call.signal);
  }
  return pollTask(client, task, call, request, AbortSignal.timeout(follow.waitMs ?? 10_000), 'follow');
}

const readTask = (client: Client, taskId: string, call: RequestOptions) =>
  client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema, call);

// --- The tasks extension of MCP 2026-07-28 (`io.modelcontextprotocol/tasks`) ---

/** The extension's wire schemas, from its official package, loaded with the first task of a 2026 server. */
const wire = () => import('@modelcontextprotocol/ext-tasks/core/v2');

/** How many multi round-trip legs one `tools/call` may take before the host gives up (as the SDK does). */
const mostInputRounds = 10;

/**
 * What answering a task's questions needs (whose request it is, the server's name and roots), and the
 * tool's declaration (its schemas), when the connection lists it.
 */
export interface TaskAsker {
  request: InFlightRequest;
  server: string;
  roots: Array<{ uri: string; name?: string }>;
  tool?: { name: string; inputSchema?: unknown; outputSchema?: unknown };
}

/** Questions (input requests) a server may put to the person in one call, and in one answer. */
const mostQuestions = 10;
const mostAtOnce = 5;

/**
 * The questions of one call so far, counted (a server cannot keep the person answering forever), and
 * the keys a task's polls repeat (each is asked once). A `tools/call` round's questions are all
 * answered, each round: a server may ask again under the same key (as the SDK's own driver answers).
 */
class Questions {
  private readonly answered = new Set<string>();
  private asked = 0;
  /** A question could not be put or answered (sampling refused, a malformed request). */
  failed = false;

  constructor(
    readonly asker: TaskAsker,
    private readonly signal: AbortSignal | undefined,
  ) {}

  /** Answers the input requests: a task's not answered yet (`once`), or every one of a call's round. */
  async answer(
    requests: Record<string, unknown>,
    once: boolean,
  ): Promise<Record<string, Record<string, unknown>>> {
    const fresh = Object.entries(requests).filter(([key]) => !once || !this.answered.has(key));
    if (fresh.length > mostAtOnce)
      throw invalidResult(
        'tools/call',
        `the server asks ${fresh.length} questions at once (at most ${mostAtOnce})`,
      );
    if (this.asked + fresh.length > mostQuestions)
      throw invalidResult(
        'tools/call',
        `the server keeps asking (more than ${mostQuestions} questions in one call)`,
      );
    this.asked += fresh.length;
    const responses: Record<string, Record<string, unknown>> = {};
    for (const [key, input] of fresh) {
      // The person stopped the turn: nothing more is asked of them.
      this.signal?.throwIfAborted();
      this.answered.add(key);
      try {
        responses[key] = await answerInput(input, this.asker);
      } catch (error) {
        this.failed = !this.signal?.aborted;
        throw error;
      }
    }
    return responses;
  }
}

/** Answers one input request of a 2026 result (a task's, or a `tools/call`'s `input_required`). */
async function answerInput(input: unknown, asker: TaskAsker): Promise<Record<string, unknown>> {
  const { InputRequestV2Schema } = await wire();
  const parsed = InputRequestV2Schema.safeParse(input);
  if (!parsed.success)
    throw invalidResult('tasks/get', `an input request is malformed: ${parsed.error.message}`);
  const asked = parsed.data;
  if (asked.method === 'roots/list') return { roots: asker.roots };
  if (asked.method === 'elicitation/create')
    return elicitFor(asker.request, asker.server, asked.params as ElicitParams);
  return sampleFor(asker.request, asker.server, asked.params as Parameters<typeof sampleFor>[2]);
}

/** How long a cancellation nobody waits for is given before it is dropped. */
const cancelWithinMs = 30_000;

/**
 * Cancels a task on the server, in the calling request's context (its tokens): nobody waits for the
 * answer, and a server that never gives one holds nothing for longer than {@link cancelWithinMs}.
 */
function cancelLater(extension: ExtensionRequests, taskId: string): void {
  void extension
    .request('tasks/cancel', { taskId }, AbortSignal.timeout(cancelWithinMs))
    .catch(() => undefined);
}

/**
 * Calls a tool of a 2026-07-28 server that runs the tasks extension: the call declares the extension,
 * and the server decides whether to answer at once, to ask first (`input_required`: the person is
 * asked, the call sent again with their answers), or with a task, which the host then follows like a
 * 2025 one ({@link followExtensionTask}). An abort cancels the task on the server.
 */
export async function callWithTaskExtension(
  extension: ExtensionRequests,
  params: { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> },
  call: RequestOptions,
  asker: TaskAsker,
  detach?: AbortSignal,
): Promise<RawToolResult> {
  const headers = paramHeaders(asker.tool?.inputSchema, params.arguments);
  const questions = new Questions(asker, call.signal);
  // A task created while the call was being aborted is cancelled as soon as its id arrives, in this
  // request's context whatever context the answer comes in.
  const late = AsyncResource.bind((answer: Record<string, unknown>) => {
    if (answer.resultType === 'task' && typeof answer.taskId === 'string')
      cancelLater(extension, answer.taskId);
  });
  let retry: Record<string, unknown> = {};
  for (let round = 0; ; round++) {
    const result = await extension.request('tools/call', { ...params, ...retry }, call.signal, late, headers);
    const kind = result.resultType;
    if (kind === 'complete') return completeResult(result, asker.tool);
    if (kind === 'task') {
      const { CreateTaskResultV2Schema } = await wire();
      const created = CreateTaskResultV2Schema.safeParse(result);
      if (!created.success) {
        if (typeof result.taskId === 'string') cancelLater(extension, result.taskId);
        throw invalidResult('tools/call', `a malformed task: ${created.error.message}`);
      }
      return followExtensionTask(extension, created.data, call, questions, detach, 'turn');
    }
    if (kind !== 'input_required')
      throw invalidResult(
        'tools/call',
        kind === undefined ? 'no resultType' : `resultType "${String(kind)}"`,
      );
    if (round + 1 >= mostInputRounds)
      throw invalidResult('tools/call', `still asking for input after ${mostInputRounds} rounds`);
    const requests = (result.inputRequests ?? {}) as Record<string, unknown>;
    retry = {
      ...(Object.keys(requests).length > 0
        ? { inputResponses: await questions.answer(requests, false) }
        : {}),
      ...(typeof result.requestState === 'string' ? { requestState: result.requestState } : {}),
    };
  }
}

/**
 * A `complete` result as the host reads a tool's result (its discriminator dropped), checked: a tool
 * result, and, when the tool declares an output schema, structured content that matches it (as the
 * SDK's own `callTool` checks every other call).
 */
async function completeResult(
  result: Record<string, unknown>,
  tool: TaskAsker['tool'],
): Promise<RawToolResult> {
  const { resultType: _complete, ...rest } = result;
  const checked = CallToolResultSchema.safeParse(rest);
  if (!checked.success) throw invalidResult('tools/call', `not a tool result: ${checked.error.message}`);
  if (tool?.outputSchema && !checked.data.isError) {
    if (checked.data.structuredContent === undefined)
      throw invalidResult(
        'tools/call',
        `${tool.name} has an output schema but returned no structured content`,
      );
    const verdict = (await outputCheck(tool))(checked.data.structuredContent);
    if (!verdict.valid)
      throw invalidResult(
        'tools/call',
        `structured content does not match the tool's output schema: ${verdict.errorMessage}`,
      );
  }
  return rest as RawToolResult;
}

/** Each tool declaration's output check, compiled once (the SDK's own validator, loaded when first needed). */
const outputChecks = new WeakMap<object, (value: unknown) => { valid: boolean; errorMessage?: string }>();

async function outputCheck(
  tool: NonNullable<TaskAsker['tool']>,
): Promise<(value: unknown) => { valid: boolean; errorMessage?: string }> {
  const known = outputChecks.get(tool);
  if (known) return known;
  const { AjvJsonSchemaValidator } = await import('@modelcontextprotocol/client/validators/ajv');
  const check = new AjvJsonSchemaValidator().getValidator(tool.outputSchema as never);
  outputChecks.set(tool, check);
  return check;
}

/**
 * Follows a task of the extension to its end: `tasks/get` at the server's `pollIntervalMs` (within
 * bounds), each status reported like progress; a question (`input_required`) goes to the person once
 * per key and their answers back with `tasks/update`; the result comes inline with `completed`;
 * `failed` carries the JSON-RPC error it ended with. When `until` fires, the host stops waiting and the
 * task goes on (the result names it: {@link taskState}); when the call aborts, or following it fails
 * (a malformed answer, a question that cannot be asked), the task is cancelled.
 */
async function followExtensionTask(
  extension: ExtensionRequests,
  first: { taskId: string; status: string; statusMessage?: string; pollIntervalMs?: number },
  call: RequestOptions,
  questions: Questions,
  until: AbortSignal | undefined,
  mode: FollowMode,
): Promise<RawToolResult> {
  const taskId = first.taskId;
  const progressed = (update: number, message: string) =>
    questions.asker.request.progressed({ progress: update, message });
  const cancel = () => cancelLater(extension, taskId);
  call.signal?.addEventListener('abort', cancel, { once: true });
  // Aborted before the listener was there (the task's id arrived as the call was being stopped).
  if (call.signal?.aborted) cancel();
  let task: Record<string, unknown> & { status: string; statusMessage?: string; pollIntervalMs?: number } =
    first;
  try {
    const { DetailedTaskV2Schema } = await wire();
    // A created task is a bare Task: its questions, result or error come with `tasks/get` alone.
    let detailed = false;
    for (let updates = 1; ; updates++) {
      progressed(updates, task.statusMessage ?? task.status);
      if (!detailed && task.status !== 'working') {
        // Read at once below.
      } else if (task.status === 'input_required') {
        const inputResponses = await questions.answer(
          (task.inputRequests ?? {}) as Record<string, unknown>,
          true,
        );
        if (Object.keys(inputResponses).length > 0)
          await extension.request('tasks/update', { taskId, inputResponses }, call.signal);
      } else if (task.status !== 'working') break;
      if (detailed || task.status === 'working') {
        const detached = await untilNextPoll(taskId, task.pollIntervalMs, call, until);
        if (detached) return detached;
      }
      detailed = true;
      const read = DetailedTaskV2Schema.safeParse(
        await extension.request('tasks/get', { taskId }, call.signal),
      );
      if (!read.success) throw invalidResult('tasks/get', read.error.message);
      task = read.data;
    }
  } catch (error) {
    // A task the host stops following is not left running for nobody: in a turn, whatever stopped it
    // (the person is told the tool failed); in a follow, only when it cannot be followed at all (its
    // answers malformed, too many questions, a question that could not be put), since a request that
    // failed on the way (the server restarting, a timeout) leaves it to the next follow. An abort
    // cancelled it above.
    const unfollowable = error instanceof InvalidResult || questions.failed;
    if (!call.signal?.aborted && (mode === 'turn' || unfollowable)) cancel();
    if (mode === 'follow' && unfollowable)
      return endedBadly(taskId, `the host cancelled it: ${error instanceof Error ? error.message : error}`);
    throw error;
  } finally {
    call.signal?.removeEventListener('abort', cancel);
  }
  if (task.status === 'completed') {
    const result = completeResult({ ...(task.result as Record<string, unknown>) }, questions.asker.tool);
    return mode === 'follow'
      ? result.catch((error: unknown) => {
          if (error instanceof InvalidResult) return endedBadly(taskId, error.message);
          throw error;
        })
      : result;
  }
  if (task.status === 'failed') {
    const error = task.error as { code: number; message: string; data?: unknown };
    if (mode === 'follow') return endedBadly(taskId, error.message);
    throw new ProtocolError(error.code, error.message, error.data);
  }
  return taskNote(taskId, 'cancelled', `The task ${taskId} was cancelled.`, true);
}

/** {@link followTask} for a server of the extension: polls `tasks/get`, or cancels. */
export async function followExtension(
  extension: ExtensionRequests,
  follow: { taskId: string; cancel?: boolean; waitMs?: number },
  call: RequestOptions,
  asker: TaskAsker,
): Promise<RawToolResult> {
  if (follow.cancel) {
    await extension.request('tasks/cancel', { taskId: follow.taskId }, call.signal);
    return taskNote(follow.taskId, 'cancelled', `The task ${follow.taskId} was cancelled.`, true);
  }
  const { DetailedTaskV2Schema } = await wire();
  let answer: Record<string, unknown>;
  try {
    answer = await extension.request('tasks/get', { taskId: follow.taskId }, call.signal);
  } catch (error) {
    return unknownTask(error, follow.taskId, call.signal);
  }
  const read = DetailedTaskV2Schema.safeParse(answer);
  if (!read.success) return endedBadly(follow.taskId, `its state cannot be read: ${read.error.message}`);
  return followExtensionTask(
    extension,
    read.data,
    call,
    new Questions(asker, call.signal),
    AbortSignal.timeout(follow.waitMs ?? 10_000),
    'follow',
  );
}
