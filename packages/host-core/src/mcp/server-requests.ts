import type { JsonSchema, Logger } from '@ai-assistant/chat-types';
import type {
  Client,
  ClientCapabilities,
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitResult,
} from '@modelcontextprotocol/client';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import type { McpConnection } from './connection.js';
import type { RequestDeadline } from './deadline.js';

/**
 * One request running on a connection, and who can answer the server's questions about it: the
 * request's own deadline carries them (one object per request, not two).
 */
export type InFlightRequest = RequestDeadline;

/**
 * What the host declares at initialize: roots (the configured folders, default none), elicitation
 * (forms with the schema's defaults applied, and URLs) and sampling. Servers offer the tools that
 * need them only to a client that declares them.
 */
export const clientCapabilities: ClientCapabilities = {
  roots: { listChanged: false },
  elicitation: { form: { applyDefaults: true }, url: {} },
  sampling: {},
  // A server may ask for sampling and elicitation as tasks (the 2025-11-25 revision's tasks). The host
  // answers such a request at once with its plain result rather than a task to poll: a server that
  // accepts either (server-everything does) works; one that insists on polling a task would not.
  tasks: { requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
};

/** How a server's log levels map to the host's logger. */
const logLevels: Record<string, 'debug' | 'info' | 'warn' | 'error'> = {
  debug: 'debug',
  info: 'info',
  notice: 'info',
  warning: 'warn',
  error: 'error',
  critical: 'error',
  alert: 'error',
  emergency: 'error',
};

/**
 * The request a server's question belongs to. Over stdio a question carries no link to the request it
 * is about, so it goes to the one requester whose requests run on this connection now (their newest);
 * with several people's requests running it is ambiguous, and nobody is asked rather than the wrong one.
 */
function askerOf(
  connection: McpConnection,
  kind: 'elicit' | 'sample',
): { request: InFlightRequest } | { refused: string } {
  const candidates = [...connection.inFlight.values()].filter((request) => request[kind] !== undefined);
  if (candidates.length === 0)
    return { refused: 'no request of a person who can be asked is running on this connection' };
  const requesters = new Set(candidates.map((request) => request.requester));
  if (requesters.size > 1)
    return {
      refused: 'several people’s requests run on this connection; the host cannot tell whose this is',
    };
  return { request: candidates.at(-1) as InFlightRequest };
}

/** Runs `work` with the request's deadline paused: a person's answering time is not the server's. */
async function paused<T>(request: InFlightRequest, work: () => Promise<T>): Promise<T> {
  request.pause();
  try {
    return await work();
  } finally {
    request.resume();
  }
}

/** Registers the client's side of the server's own requests and notifications on a connection. */
export function answerServerRequests(client: Client, connection: McpConnection, logger: Logger): void {
  const server = connection.config.name;
  // Progress reaches the request that carries its token. The host puts the token on each request
  // itself (the SDK's own `onprogress` would copy every request's params twice to add it).
  client.setNotificationHandler('notifications/progress', ({ params }) => {
    const request = connection.inFlight.get(Number(params.progressToken));
    if (request) request.progressed(params);
    else logger.debug({ server }, 'progress for a request that is no longer running');
  });
  client.setRequestHandler('roots/list', () => ({ roots: connection.config.roots ?? [] }));

  // A server's log messages join the host's log, named and redacted (the logger is the redactor's).
  client.setNotificationHandler('notifications/message', ({ params }) => {
    const data = typeof params.data === 'string' ? params.data : JSON.stringify(params.data);
    logger[logLevels[params.level] ?? 'warn'](
      { server, ...(params.logger ? { serverLogger: params.logger } : {}) },
      `MCP server log: ${String(data).slice(0, 2000)}`,
    );
  });

  client.setRequestHandler('elicitation/create', async ({ params }) => {
    const found = askerOf(connection, 'elicit');
    if ('refused' in found) {
      logger.warn({ server, why: found.refused }, 'an elicitation request was declined');
      return { action: 'decline' };
    }
    return elicitFor(found.request, server, params);
  });

  client.setRequestHandler('sampling/createMessage', async ({ params }) => {
    const found = askerOf(connection, 'sample');
    if ('refused' in found)
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `sampling refused: ${found.refused}`);
    return sampleFor(found.request, server, params);
  });
}

/** An elicitation's params as the host reads them (form or URL). */
export type ElicitParams = ElicitRequest['params'];

/** Asks the person behind `request` what the server's elicitation asks (the deadline paused meanwhile). */
export async function elicitFor(
  request: InFlightRequest,
  server: string,
  params: ElicitParams,
): Promise<ElicitResult> {
  // Nobody here can be asked (a task followed in the background): dismissed, not refused.
  if (!request.elicit) return { action: 'cancel' };
  const ask = request.elicit;
  const url = params.mode === 'url';
  // A page address carrying a secret of the request is neither shown nor mended (a link with the
  // secret hidden would open the wrong page): declined.
  if (url && request.hide(params.url) !== params.url) return { action: 'decline' };
  // The question reaches a thread: a secret of the request the server echoes in it stays hidden.
  const answer = await paused(request, () =>
    ask({
      server,
      mode: url ? 'url' : 'form',
      message: request.hide(params.message),
      ...(url
        ? { url: request.hide(params.url), elicitationId: params.elicitationId }
        : { requestedSchema: params.requestedSchema as JsonSchema }),
    }),
  );
  return answer.action === 'accept' && answer.content && !url
    ? { action: 'accept', content: answer.content }
    : { action: answer.action };
}

/** Runs the server's sampling request for the person behind `request`, once they approve it. */
export async function sampleFor(
  request: InFlightRequest,
  server: string,
  params: CreateMessageRequest['params'],
): Promise<CreateMessageResult> {
  if (!request.sample)
    throw new ProtocolError(ProtocolErrorCode.InvalidRequest, 'sampling refused: nobody here can approve it');
  const sample = request.sample;
  const messages = params.messages.map((message) => ({
    role: message.role,
    content: request.hide(
      (Array.isArray(message.content) ? message.content : [message.content])
        .map((part) => (part.type === 'text' ? part.text : `[${part.type} content]`))
        .join('\n'),
    ),
  }));
  const answer = await paused(request, () =>
    sample({
      server,
      messages,
      ...(params.systemPrompt ? { systemPrompt: request.hide(params.systemPrompt) } : {}),
      maxTokens: params.maxTokens,
    }),
  );
  return {
    role: 'assistant' as const,
    content: { type: 'text' as const, text: answer.text },
    model: answer.model,
    ...(answer.stopReason ? { stopReason: answer.stopReason } : {}),
  };
}

/**
 * A tool call the server answered with `-32042` (URLElicitationRequiredError, MCP 2025-11-25: the
 * request cannot be processed until the person has opened the pages in the error's
 * `data.elicitations`): each URL elicitation goes to the person who asked (`elicit`, mode `url`, the
 * deadline paused meanwhile), and the call's result says so, for the model to read. Any other error
 * is thrown again as it is.
 */
export async function afterUrlElicitations(
  error: unknown,
  request: InFlightRequest,
  server: string,
): Promise<{ content: Array<{ type: 'text'; text: string }>; isError: true }> {
  if (!(error instanceof ProtocolError) || error.code !== ProtocolErrorCode.UrlElicitationRequired)
    throw error;
  const listed = (error.data as { elicitations?: unknown } | undefined)?.elicitations;
  const pages = (Array.isArray(listed) ? listed : []).filter(
    (entry): entry is { url: string; elicitationId: string; message: string } =>
      entry?.mode === 'url' &&
      typeof entry.url === 'string' &&
      typeof entry.elicitationId === 'string' &&
      typeof entry.message === 'string',
  );
  if (pages.length === 0) throw error;
  const lines: string[] = [];
  for (const page of pages.slice(0, 3)) {
    const where = originOf(page.url);
    const said = `"${request.hide(page.message).slice(0, 300)}" (a page on ${where})`;
    if (!request.elicit) {
      lines.push(
        `The server needs the user to open a page first: ${said}, but the user could not be asked here.`,
      );
      continue;
    }
    if (request.hide(page.url) !== page.url) {
      lines.push(
        `The server asked the user to open a page whose address carries one of their secrets; the host did not show it. Tell them the tool cannot run here.`,
      );
      continue;
    }
    const ask = request.elicit;
    const message = request.hide(page.message);
    const answer = await paused(request, () =>
      ask({ server, mode: 'url', message, url: page.url, elicitationId: page.elicitationId }),
    );
    lines.push(
      answer.action === 'accept'
        ? `The server needs the user to open a page first, and the host asked the user to open a page: ${said}; they accepted. Tell them to finish there, then ask again (the tool can be called again once they have).`
        : `The server needs the user to open a page first, and the host asked the user to open a page: ${said}; they ${answer.action === 'decline' ? 'declined' : 'dismissed it'}. Tell them the tool cannot run until they do.`,
    );
  }
  return { content: [{ type: 'text', text: lines.join('\n') }], isError: true };
}

/** A URL's origin, for the model (the page itself is the person's to open, not the model's to read). */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'an address that cannot be read';
  }
}
