import type { Client, RequestOptions } from '@modelcontextprotocol/client';
import { defaultMaxToolTimeoutMs } from '../config/config-schema.js';
import type { ToolCallError } from '../errors.js';
import type { Redactor } from '../redaction.js';
import type { ToolProgress } from '../tool-host.js';
import type { Connection, InFlightRequest } from './connection.js';
import { RequestDeadline } from './deadline.js';
import { credentialsNeeded, requestCancelled, requestFailed, requestTimedOut } from './errors.js';
import { fillHeaders, withTokens } from './header-templates.js';
import type { LocalCallContext, LocalServer } from './local-servers.js';
import type { CallToolOptions } from './manager-types.js';
import { toRequestError } from './request-errors.js';
import type { Slots } from './slots.js';

/** How one request runs on an MCP connection or on a local server. */
export interface RequestWork<T> {
  /** `request` carries the progress token to put in the params' `_meta`, and takes task statuses. */
  mcp?: (client: Client, call: RequestOptions, request: InFlightRequest) => Promise<T>;
  local?: (local: LocalServer, context: LocalCallContext) => Promise<T>;
}

/**
 * The one path every request to a server takes (tool calls, resource reads, prompt gets): the state
 * check, the caller's tokens (registered with the redactor, missing ones refused before anything is
 * sent, carried to the header-filling fetch), the timeout, cancellation, and one error mapping.
 *
 * Kept lean on purpose, as a small call's whole cost on the host is a few tens of microseconds: no
 * async function, and one `then` on the request's own promise ends it (the deadline and the slot),
 * maps its failure (`failure`, which costs nothing until a request fails) and makes the caller's
 * result (`finish`). The checks before sending are in `begin`, the request itself in `send`.
 */
export function runRequest<T, R = T>(
  connection: Connection,
  what: string,
  options: CallToolOptions,
  work: RequestWork<T>,
  host: RequestHost,
  /** Collects this request's secrets (the caller's tokens, credentials a local server filled in). */
  secrets: string[],
  /** Whose turn it waits for: the server's slots, or the person's own connection's. */
  slot: string,
  /** What the caller gets of the server's result (after the request has ended). */
  finish?: (result: T) => R,
  /** The slot is taken already (the request waited its turn). */
  holding = false,
): Promise<R> {
  if (!holding) {
    const wait = host.slots.acquire(slot);
    if (wait)
      return wait.then(() => runRequest(connection, what, options, work, host, secrets, slot, finish, true));
  }
  let deadline: RequestDeadline;
  try {
    // Refusals before anything is sent (not connected, cancelled, credentials missing) pass as they are.
    deadline = begin(connection, what, options, host, secrets);
  } catch (error) {
    host.slots.release(slot);
    return Promise.reject(error);
  }
  let sent: Promise<T>;
  try {
    sent = send(connection, what, options, work, deadline, host, secrets);
  } catch (error) {
    end(connection, deadline, host, slot);
    return Promise.reject(failure(error, connection, what, options, deadline, host.redactor, secrets));
  }
  return sent.then(
    (result) => {
      end(connection, deadline, host, slot);
      return finish ? finish(result) : (result as unknown as R);
    },
    (error: unknown) => {
      end(connection, deadline, host, slot);
      throw failure(error, connection, what, options, deadline, host.redactor, secrets);
    },
  );
}

/** The request has ended: its deadline stops, it leaves the in-flight record, its slot is given back. */
function end(connection: Connection, deadline: RequestDeadline, host: RequestHost, slot: string): void {
  // A local server's fetch may still hold its signal; an MCP request's listeners are gone by now.
  deadline.dispose(connection.kind === 'mcp');
  if (connection.kind === 'mcp') connection.inFlight.delete(deadline.token);
  host.slots.release(slot);
}

/** The checks before a request is sent, and its deadline. */
function begin(
  connection: Connection,
  what: string,
  options: CallToolOptions,
  host: RequestHost,
  secrets: string[],
): RequestDeadline {
  const config = connection.config;
  if (connection.state !== 'connected') throw notConnected(connection, what, host.redactor);
  if (options.signal?.aborted) throw requestCancelled(what);
  // The caller's secrets are hidden in this request's output and errors, and in every log.
  if (options.tokens) {
    for (const value of Object.values(options.tokens)) secrets.push(value);
    host.redactor.add(secrets);
  }
  if (config.transport === 'http' || config.transport === 'sse') {
    const { missing } = fillHeaders(config.headers, options.tokens ?? noTokens, host.env);
    if (missing.length > 0) throw credentialsNeeded(what, config.name, missing);
  }
  const timeoutMs = options.timeoutMs ?? config.timeoutMs;
  const maxMs = Math.max(timeoutMs, config.maxTimeoutMs ?? defaultMaxToolTimeoutMs);
  return new RequestDeadline(timeoutMs, maxMs, options.signal);
}

/** Sends the request on its connection (MCP or local) under its deadline. */
function send<T>(
  connection: Connection,
  what: string,
  options: CallToolOptions,
  work: RequestWork<T>,
  deadline: RequestDeadline,
  host: RequestHost,
  secrets: string[],
): Promise<T> {
  const tokens = options.tokens ?? noTokens;
  if (connection.kind === 'local') {
    if (!connection.local || !work.local)
      throw new Error(`the server does not answer ${what.split(' ')[0]} requests`);
    return work.local(connection.local, {
      signal: deadline.signal,
      timeoutMs: deadline.idleMs,
      tokens,
      secrets: (values) => {
        secrets.push(...values);
        host.redactor.add(values);
      },
    });
  }
  const client = connection.client;
  if (!client || !work.mcp) throw new Error(`the server does not answer ${what.split(' ')[0]} requests`);
  const run = work.mcp;
  const onProgress = options.onProgress;
  // A caller that listens for progress sends a progress token (see `meta` in requests.ts): the server
  // may then report progress, and each report restarts the deadline (a long operation that keeps
  // saying how far it is lives on, up to `maxMs`). The deadline is ours, not the SDK's, so a person
  // answering the server pauses it. The deadline is also the in-flight record: progress finds it by
  // its token, questions by who asked.
  const call: RequestOptions = { signal: deadline.signal, timeout: longestTimerMs };
  deadline.token = connection.nextToken++;
  if (onProgress)
    deadline.onProgress = (progress) => onProgress(progressReport(progress, host.redactor, secrets));
  deadline.requester = options.requester;
  deadline.elicit = options.elicit;
  deadline.sample = options.sample;
  deadline.redactor = host.redactor;
  deadline.secrets = secrets;
  connection.inFlight.set(deadline.token, deadline);
  // Only the HTTP transports fill headers from the tokens; over stdio the AsyncLocalStorage would
  // cost every promise of the process its context propagation for nothing.
  if (!isRemote(connection.config)) return run(client, call, deadline);
  deadline.within = (work) => withTokens(tokens, work);
  return withTokens(tokens, () => run(client, call, deadline));
}

/** What a request that failed after it was sent becomes: the one error mapping, redacted. */
function failure(
  error: unknown,
  connection: Connection,
  what: string,
  options: CallToolOptions,
  deadline: RequestDeadline,
  redactor: Redactor,
  secrets: string[],
): Error {
  const config = connection.config;
  const server = config.name;
  // The SDK's stdio transport drops the connection on a message over its read limit: the call that
  // asked for it fails as too large, and the supervisor restarts the server.
  if (connection.kind === 'mcp' && connection.overflowAt !== undefined && !options.signal?.aborted)
    return requestFailed(
      what,
      server,
      'result too large: the server sent a message over the 10 MB read limit; the server is restarting',
      { cause: error },
    );
  if (deadline.expired && !options.signal?.aborted)
    return requestTimedOut(what, server, deadline.expired === 'idle' ? deadline.idleMs : deadline.maxMs, {
      cause: error,
    });
  return toRequestError(error, {
    what,
    server,
    timeoutMs: deadline.idleMs,
    signal: options.signal,
    redact: (text: string) => redactor.redact(text, secrets),
    // The person's credential went with the request, or is the connection's own (per-person).
    personal:
      config.personalCredential === true &&
      (options.tokens?.token !== undefined ||
        config.personalSecret !== undefined ||
        ('oauthPerson' in config && config.oauthPerson !== undefined)),
  });
}

const isRemote = (config: Connection['config']) => config.transport === 'http' || config.transport === 'sse';

/** What every request shares: made once per manager, never per request. */
export interface RequestHost {
  redactor: Redactor;
  env: NodeJS.ProcessEnv;
  slots: Slots;
}

const noTokens: Readonly<Record<string, string>> = Object.freeze({});

/** A server's progress notification as the caller sees it (its message redacted). */
function progressReport(
  { progress, total, message }: { progress: number; total?: number; message?: string },
  redactor: Redactor,
  secrets: string[],
): ToolProgress {
  return {
    progress,
    ...(total !== undefined ? { total } : {}),
    ...(message ? { message: redactor.redact(message, secrets) } : {}),
  };
}

/** The SDK's own request timer, set past any deadline of ours (Node's timers overflow past 2³¹−1 ms). */
const longestTimerMs = 2_147_483_647;

/** Why a request cannot reach a server that is not connected: restarting, or down, with the cause. */
function notConnected(connection: Connection, what: string, redactor: Redactor): ToolCallError {
  const cause = connection.reason ? redactor.redact(connection.reason) : undefined;
  const restarting = connection.state === 'restarting' || connection.state === 'connecting';
  const state = restarting
    ? 'the server is restarting; try again in a moment'
    : connection.state === 'failed'
      ? 'the server is down'
      : `the server is ${connection.state}`;
  return requestFailed(what, connection.config.name, cause ? `${state} (${cause})` : state);
}
