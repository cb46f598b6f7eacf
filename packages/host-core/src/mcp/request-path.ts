import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { defaultMaxToolTimeoutMs } from '../config/config-schema.js';
import type { ToolCallError } from '../errors.js';
import type { Redactor } from '../redaction.js';
import type { Connection, InFlightRequest } from './connection.js';
import { RequestDeadline } from './deadline.js';
import { credentialsNeeded, requestCancelled, requestFailed, requestTimedOut } from './errors.js';
import { fillHeaders, withTokens } from './header-templates.js';
import type { LocalCallContext, LocalServer } from './local-servers.js';
import type { CallToolOptions } from './manager-types.js';
import { toRequestError } from './request-errors.js';

/** How one request runs on an MCP connection or on a local server. */
export interface RequestWork<T> {
  mcp?: (client: Client, call: RequestOptions) => Promise<T>;
  local?: (local: LocalServer, context: LocalCallContext) => Promise<T>;
}

/**
 * The one path every request to a server takes (tool calls, resource reads, prompt gets): the state
 * check, the caller's tokens (registered with the redactor, missing ones refused before anything is
 * sent, carried to the header-filling fetch), the timeout, cancellation, and one error mapping.
 */
export async function runRequest<T>(
  connection: Connection,
  what: string,
  options: CallToolOptions,
  work: RequestWork<T>,
  host: {
    redactor: Redactor;
    env: NodeJS.ProcessEnv;
    /** Collects this request's secrets (the caller's tokens, credentials a local server filled in). */
    secrets?: string[];
  },
): Promise<T> {
  const config = connection.config;
  const server = config.name;
  if (connection.state !== 'connected') throw notConnected(connection, what, host.redactor);
  if (options.signal?.aborted) throw requestCancelled(what);
  const tokens = options.tokens ?? {};
  // The caller's secrets are hidden in this request's output and errors, and in every log.
  const secrets = host.secrets ?? [];
  secrets.push(...Object.values(tokens));
  host.redactor.add(secrets);
  const timeoutMs = options.timeoutMs ?? config.timeoutMs;
  if (config.transport === 'http' || config.transport === 'sse') {
    const { missing } = fillHeaders(config.headers, tokens, host.env);
    if (missing.length > 0) throw credentialsNeeded(what, server, missing);
  }
  const maxMs = Math.max(timeoutMs, config.maxTimeoutMs ?? defaultMaxToolTimeoutMs);
  const deadline = new RequestDeadline(timeoutMs, maxMs, options.signal);
  const failed = {
    what,
    server,
    timeoutMs,
    signal: options.signal,
    redact: (text: string) => host.redactor.redact(text, secrets),
    personal: config.personalCredential === true && tokens.token !== undefined,
  };
  try {
    if (connection.kind === 'mcp') {
      const client = connection.client;
      if (!client || !work.mcp) throw new Error(`the server does not answer ${what.split(' ')[0]} requests`);
      const run = work.mcp;
      const onProgress = options.onProgress;
      // A progress token on every request: the server may report progress, and each report restarts
      // the deadline (a long operation that keeps saying how far it is lives on, up to `maxMs`). The
      // deadline is ours, not the SDK's, so a person answering the server pauses it.
      const call: RequestOptions = {
        signal: deadline.requestSignal,
        timeout: longestTimerMs,
        onprogress: ({ progress, total, message }) => {
          deadline.reset();
          onProgress?.({
            progress,
            ...(total !== undefined ? { total } : {}),
            ...(message ? { message: host.redactor.redact(message, secrets) } : {}),
          });
        },
      };
      const request: InFlightRequest = {
        deadline,
        ...(options.requester ? { requester: options.requester } : {}),
        ...(options.elicit ? { elicit: options.elicit } : {}),
        ...(options.sample ? { sample: options.sample } : {}),
      };
      connection.inFlight.add(request);
      try {
        // Only the HTTP transports fill headers from the tokens; over stdio the AsyncLocalStorage would
        // cost every promise of the process its context propagation for nothing.
        return config.transport === 'stdio'
          ? await run(client, call)
          : await withTokens(tokens, () => run(client, call));
      } finally {
        connection.inFlight.delete(request);
      }
    }
    if (!connection.local || !work.local)
      throw new Error(`the server does not answer ${what.split(' ')[0]} requests`);
    return await work.local(connection.local, {
      signal: deadline.signal,
      timeoutMs,
      tokens,
      secrets: (values) => {
        secrets.push(...values);
        host.redactor.add(values);
      },
    });
  } catch (error) {
    // The SDK's stdio transport drops the connection on a message over its read limit: the call that
    // asked for it fails as too large, and the supervisor restarts the server.
    if (connection.kind === 'mcp' && connection.overflowAt !== undefined && !options.signal?.aborted)
      throw requestFailed(
        what,
        server,
        'result too large: the server sent a message over the 10 MB read limit; the server is restarting',
        { cause: error },
      );
    if (deadline.expired && !options.signal?.aborted)
      throw requestTimedOut(what, server, deadline.expired === 'idle' ? timeoutMs : maxMs, { cause: error });
    throw toRequestError(error, failed);
  } finally {
    deadline.dispose();
  }
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
