import type { Redactor } from '../redaction.js';
import { traceContext, withTraceContext } from '../telemetry.js';
import type { AppResource, CallToolOptions, ToolCallOutcome } from '../tool-host.js';
import { appResultOf, viewUriOf } from './app-views.js';
import type { Connection, InFlightRequest } from './connection.js';
import {
  carriesMedia,
  filesOf,
  formatToolResult,
  imagesOf,
  type RawToolResult,
} from './format-tool-result.js';
import type { FilledPrompt } from './manager-types.js';
import { type RequestHost, type RequestWork, runRequest } from './request-path.js';
import { afterUrlElicitations } from './server-requests.js';
import { Slots } from './slots.js';
import type { ExtensionRequests } from './task-extension.js';
import {
  asTask,
  callAsTask,
  callWithTaskExtension,
  followExtension,
  followTask,
  type TaskAsker,
  taskState,
} from './tasks.js';

/**
 * Tool calls, resource reads and prompt gets on one connection: each waits for a slot of its server
 * (or of the person's own connection), runs on the request path (timeouts, tokens, errors), and comes
 * back as text the model can read, cut to the result budget, with every secret it carried hidden.
 */
export class Requests {
  private readonly host: RequestHost;

  constructor(
    private readonly redactor: Redactor,
    env: NodeJS.ProcessEnv,
    private readonly resultBudget: number,
    maxConcurrentPerServer: number,
  ) {
    this.host = { redactor, env, slots: new Slots(Math.max(1, maxConcurrentPerServer)) };
  }

  /** Calls `tool` on the connection; `slot` names whose turn it waits for (default: the server's). */
  callTool(
    connection: Connection,
    tool: string,
    name: string,
    args: Record<string, unknown>,
    options: CallToolOptions,
    slot?: string,
  ): Promise<ToolCallOutcome> {
    const secrets: string[] = [];
    // Not an async function, and the result is made on the request's own `then`: on the path of
    // every call, as few promises to wait through as can be.
    const work: RequestWork<RawToolResult> =
      connection.kind === 'local'
        ? { local: (local, context) => local.call(tool, args, context) }
        : options.followTask
          ? {
              mcp: (client, call, request) => {
                const follow = options.followTask as NonNullable<CallToolOptions['followTask']>;
                const extension = connection.kind === 'mcp' ? connection.extension : undefined;
                return extension
                  ? followExtension(extension, follow, call, askerOf(connection, request, tool))
                  : followTask(client, follow, call, request);
              },
            }
          : connection.kind === 'mcp' && connection.extension
            ? {
                mcp: (client, call, request) => {
                  const params = { name: tool, arguments: args, _meta: meta(request) };
                  // The connection may have been opened again since (it is still the same server).
                  const extension = (connection as { extension?: ExtensionRequests }).extension;
                  return (
                    extension
                      ? callWithTaskExtension(
                          extension,
                          params,
                          call,
                          askerOf(connection, request, tool),
                          options.detach,
                        )
                      : client.callTool(params, call)
                  ).catch((error: unknown) => afterUrlElicitations(error, request, connection.config.name));
                },
              }
            : asTask(connection, tool)
              ? {
                  mcp: (client, call, request) =>
                    callAsTask(
                      client,
                      { name: tool, arguments: args, _meta: meta(request) },
                      call,
                      request,
                      options.detach,
                    ).catch((error: unknown) => afterUrlElicitations(error, request, connection.config.name)),
                }
              : {
                  mcp: (client, call, request) =>
                    client
                      .callTool({ name: tool, arguments: args, _meta: meta(request) }, call)
                      .catch((error: unknown) =>
                        afterUrlElicitations(error, request, connection.config.name),
                      ),
                };
    return this.run(connection, name, options, work, secrets, slot, (result) => {
      const outcome = this.outcome(result, connection.config.name, tool, secrets);
      // MCP Apps: the view's page gets the result as the server sent it (the model never does).
      const resourceUri = connection.kind === 'mcp' ? viewOf(connection, tool) : undefined;
      if (resourceUri || options.appResult) {
        const kept = appResultOf(result, this.redactor, secrets);
        outcome.app = { ...(resourceUri ? { resourceUri } : {}), ...(kept ? { result: kept } : {}) };
      }
      return outcome;
    });
  }

  /** Reads a resource as the server sent it, redacted (an App's view and what it reads; never a model's). */
  async readForApp(connection: Connection, uri: string, options: CallToolOptions): Promise<AppResource> {
    const secrets: string[] = [];
    const result = await this.read(connection, uri, options, secrets);
    return this.redactor.redactValue({ contents: result.contents }, secrets) as AppResource;
  }

  /** `resources/read` on the request path, as the server sent it. */
  private read(connection: Connection, uri: string, options: CallToolOptions, secrets: string[]) {
    return this.run(
      connection,
      `read_resource ${uri}`,
      options,
      { mcp: (client, call, request) => client.readResource({ uri, _meta: meta(request) }, call) },
      secrets,
    );
  }

  /** A tool's result as the caller reads it: text within the budget, redacted; images and files. */
  private outcome(result: RawToolResult, server: string, tool: string, secrets: string[]): ToolCallOutcome {
    const formatted = formatToolResult(result, this.resultBudget, server);
    const outcome: ToolCallOutcome = {
      text: this.redactor.redact(formatted.text, secrets),
      isError: formatted.isError,
      server,
      tool,
    };
    const task = (result as { [taskState]?: { taskId: string; status: string } })[taskState];
    if (task) outcome.task = task;
    // Most results are text alone: images and files are looked for only when a block may hold one.
    if (carriesMedia(result)) {
      const images = imagesOf(result);
      const files = filesOf(result);
      if (images.length > 0) outcome.images = images;
      if (files.length > 0) outcome.files = files;
    }
    return outcome;
  }

  /** Reads a resource as text (textual blobs decoded, others described). */
  async readResource(
    connection: Connection,
    uri: string,
    options: CallToolOptions,
  ): Promise<ToolCallOutcome> {
    const secrets: string[] = [];
    const result = await this.read(connection, uri, options, secrets);
    // Each part is read as a tool's embedded resource: text as it is, textual blobs decoded, others described.
    const formatted = formatToolResult(
      { content: result.contents.map((resource) => ({ type: 'resource', resource })) },
      this.resultBudget,
    );
    return {
      text: this.redactor.redact(formatted.text, secrets),
      isError: false,
      server: connection.config.name,
      tool: 'read_resource',
    };
  }

  /** Fills a prompt and returns its messages as plain text. */
  async getPrompt(
    connection: Connection,
    name: string,
    args: Record<string, string>,
    options: CallToolOptions,
  ): Promise<FilledPrompt> {
    const secrets: string[] = [];
    const result = await this.run(
      connection,
      `prompt ${name}`,
      options,
      {
        mcp: (client, call, request) =>
          client.getPrompt({ name, arguments: args, _meta: meta(request) }, call),
      },
      secrets,
    );
    return {
      ...(result.description ? { description: this.redactor.redact(result.description, secrets) } : {}),
      messages: result.messages.map((message) => ({
        role: message.role,
        content: this.redactor.redact(
          formatToolResult({ content: [message.content] }, this.resultBudget).text,
          secrets,
        ),
      })),
    };
  }

  /**
   * Values the server suggests for a prompt's argument as typed so far (`completion/complete`), at most
   * 100; none when the server does not offer completions.
   */
  async completePromptArgument(
    connection: Connection,
    prompt: string,
    argument: { name: string; value: string },
    context: Record<string, string>,
    options: CallToolOptions,
  ): Promise<string[]> {
    if (connection.kind !== 'mcp' || !connection.client?.getServerCapabilities()?.completions) return [];
    const secrets: string[] = [];
    const result = await this.run(
      connection,
      `prompt ${prompt}`,
      options,
      {
        mcp: (client, call, request) =>
          client.complete(
            {
              ref: { type: 'ref/prompt', name: prompt },
              argument,
              _meta: meta(request),
              ...(Object.keys(context).length > 0 ? { context: { arguments: context } } : {}),
            },
            call,
          ),
      },
      secrets,
    );
    return result.completion.values.slice(0, 100).map((value) => this.redactor.redact(value, secrets));
  }

  private run<T, R = T>(
    connection: Connection,
    what: string,
    options: CallToolOptions,
    work: RequestWork<T>,
    secrets: string[],
    slot = connection.config.name,
    finish?: (result: T) => R,
  ): Promise<R> {
    return runRequest(connection, what, options, work, this.host, secrets, slot, finish);
  }
}

/** Who answers a 2026 task's questions (the request's own person, with the server's roots), and its tool. */
function askerOf(connection: Connection, request: InFlightRequest, tool: string): TaskAsker {
  const declared = connection.tools.find((entry) => entry.name === tool);
  return {
    request,
    server: connection.config.name,
    roots: rootsOf(connection),
    ...(declared ? { tool: declared } : {}),
  };
}

const rootsOf = (connection: Connection) =>
  ('roots' in connection.config ? connection.config.roots : undefined) ?? [];

/** The MCP Apps view a connection's tool declares, if any. */
function viewOf(connection: Connection, tool: string): string | undefined {
  return viewUriOf(connection.tools.find((candidate) => candidate.name === tool));
}

/**
 * The params' `_meta` of a request: its progress token when the caller listens for progress, and the
 * trace context when traced; nothing at all otherwise. The token is sent only to a listener, as the
 * SDK's own `onprogress` does: parsing a `_meta` costs the server's SDK several microseconds a request
 * (its schemas check the object again at each step), a tenth of a small call's whole cost. The chat
 * loop always listens (progress shows in Slack and restarts the deadline). The token goes as a
 * string: the SDK reads a token as string-or-integer, trying string first (the server's notifications
 * send it back as given; the connection finds the request by its number).
 */
const meta = (request: InFlightRequest) =>
  request.onProgress ? withTraceContext({ progressToken: String(request.token) }) : traceContext();
