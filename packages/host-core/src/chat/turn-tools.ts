import type { ImageContent, Logger, Message, ToolCall, ToolDefinition } from '@ai-assistant/chat-types';
import { HostError } from '@ai-assistant/chat-types';
import { CancelledError, ToolCallError } from '../errors.js';
import { inSpan, recordMetric } from '../telemetry.js';
import type { CallToolOptions, RequestTokens, ToolHost } from '../tool-host.js';
import { checkArguments } from '../tools/validate-arguments.js';
import { autoContextSections } from './auto-context.js';
import type { ChatEvent, RespondInput, ToolAuditEntry, TraceEntry } from './chat-types.js';
import { recordToolAudit } from './tool-audit.js';
import { describeFailure } from './tool-failures.js';

/** What one turn's tool calls share. */
export interface TurnToolsOptions {
  host: ToolHost;
  /** Every tool a call may name this turn (the catalog, and the host's own search tool when it is offered). */
  tools: ToolDefinition[];
  /** Tools the turn runs itself (the tool search), by name: they answer with text and never fail. */
  local?: ReadonlyMap<string, (args: Record<string, unknown>) => string>;
  emit: (event: ChatEvent) => void;
  logger: Logger;
  signal?: AbortSignal;
  tokens?: RequestTokens;
  toolTimeoutMs?: number;
  /** Calls run per round; the rest are answered with an error (default 16). */
  maxCallsPerRound: number;
  /** Asks a person before a tool that needs approval runs. */
  approve?: RespondInput['approve'];
  /** Whether the model reads images: tool results' images then travel with their messages. */
  images?: boolean;
  /** The asker's workspace, for metrics. */
  workspace?: string;
  /** Each call is recorded for the audit trail (who, what redacted, approval, outcome). */
  audit?: {
    asker: { workspace: string; user: string };
    record: (entry: ToolAuditEntry) => void | Promise<void>;
    now: () => Date;
    logger: Logger;
  };
  /** How the turn answers its servers' questions (elicitation, sampling) in the middle of a call. */
  questions?: Pick<CallToolOptions, 'elicit' | 'sample' | 'requester'>;
  /** Fires when the answer must wrap up: a call running as a task is then left running (detached). */
  detach?: AbortSignal;
}

/**
 * The tool side of one turn: auto-context lookups, then each round's calls (run concurrently, capped,
 * every failure turned into text the model can read), with each server's `response_instruction` given
 * once per turn across both paths.
 */
export class TurnTools {
  /** When each approved call of the turn was approved, for the audit. */
  private readonly approvedAt = new Map<string, Date>();
  readonly trace: TraceEntry[] = [];
  readonly host: ToolHost;
  readonly tools: ToolDefinition[];
  readonly emit: (event: ChatEvent) => void;
  readonly logger: Logger;
  readonly signal: AbortSignal | undefined;
  /** Servers whose response_instruction the model has already read this turn. */
  readonly instructed = new Set<string>();
  /** Calls (tool and arguments) the person declined this turn, with why. */
  private readonly declined = new Map<string, string>();

  constructor(private readonly options: TurnToolsOptions) {
    this.host = options.host;
    this.tools = options.tools;
    this.emit = options.emit;
    this.logger = options.logger;
    this.signal = options.signal;
  }

  /** Runs one round's calls and returns the tool messages, in the order the model asked. */
  async round(calls: ToolCall[]): Promise<Message[]> {
    const limit = this.options.maxCallsPerRound;
    if (calls.length > limit)
      this.logger.warn({ asked: calls.length, limit }, 'too many tool calls in one round; the rest refused');
    const results = await Promise.all(
      calls.map((call, index) =>
        index < limit ? this.runTool(call) : Promise.resolve(this.refused(call, limit)),
      ),
    );
    return results.map((result, index) => {
      const call = calls[index] as ToolCall;
      this.trace.push(result.trace);
      let content = result.content;
      // A server's response_instruction follows its first result of the turn, never again.
      const instruction = this.host.responseInstructionFor(call.name);
      const server = result.trace.server;
      if (instruction && server && !this.instructed.has(server)) {
        this.instructed.add(server);
        content = `${content}\n\n[Instruction for using this result] ${instruction}`;
      }
      return {
        role: 'tool',
        toolCallId: call.id,
        content,
        isError: !result.trace.ok,
        // A model that reads images gets them; others read their description in the text.
        ...(result.images && this.options.images ? { images: result.images } : {}),
      };
    });
  }

  private refused(
    call: ToolCall,
    limit: number,
  ): { content: string; trace: TraceEntry; images?: ImageContent[] } {
    const content = `Error: not run: at most ${limit} tool calls run in one round. Ask again for what is still needed, fewer at a time.`;
    return {
      content,
      trace: {
        name: call.name,
        arguments: this.host.redact(call.arguments, this.turnSecrets()),
        durationMs: 0,
        ok: false,
        error: content,
      },
    };
  }

  /**
   * Asks the person (through `approve`) whether a call may run; undefined when approved, else the
   * error text the model reads. A call declined once this turn is declined again without asking.
   */
  private async askApproval(
    call: ToolCall,
    definition: ToolDefinition,
    shownArguments: Record<string, unknown>,
  ): Promise<string | undefined> {
    const approve = this.options.approve;
    if (!approve)
      return `Error: not run: ${call.name} needs a person's approval before it runs, and no one can be asked here. Tell the user it needs their approval.`;
    const key = `${call.name}\u0000${JSON.stringify(call.arguments)}`;
    const earlier = this.declined.get(key);
    if (earlier) return `Error: not run: ${earlier} Do not call it again in this turn.`;
    const target = this.host.resolveTool(call.name);
    const decision = await approve({
      name: call.name,
      server: target?.server ?? '',
      tool: target?.tool ?? call.name,
      arguments: shownArguments,
      hints: definition.hints ?? { readOnly: false, destructive: true, idempotent: false, openWorld: true },
      ...(JSON.stringify(shownArguments) !== JSON.stringify(call.arguments) ? { hidesSecrets: true } : {}),
    });
    if (this.signal?.aborted) throw new CancelledError();
    recordMetric.approval(this.options.workspace, decision.outcome);
    if (decision.outcome === 'approved') {
      this.approvedAt.set(call.id, this.options.audit?.now() ?? new Date());
      return undefined;
    }
    const why =
      decision.outcome === 'denied'
        ? `the person declined to run ${call.name}${decision.reason ? `, saying: "${decision.reason}"` : ''}.`
        : `the person did not answer the approval request for ${call.name} in time.`;
    this.declined.set(key, why);
    return `Error: not run: ${why} Do not call it again in this turn; answer with what you have, or ask them.`;
  }

  /** One call's options: the turn's signal, tokens and timeout; its progress reported as events. */
  callOptions(call: { id: string; name: string; server?: string }): CallToolOptions {
    return {
      signal: this.signal,
      tokens: this.options.tokens,
      ...(this.options.toolTimeoutMs ? { timeoutMs: this.options.toolTimeoutMs } : {}),
      ...this.options.questions,
      ...(this.options.detach ? { detach: this.options.detach } : {}),
      onProgress: (update) =>
        this.emit({
          type: 'tool_progress',
          callId: call.id,
          name: call.name,
          ...(call.server ? { server: call.server } : {}),
          ...update,
        }),
    };
  }

  /** The turn's own tokens: hidden in what this turn shows, as the person's credentials are. */
  turnSecrets(): string[] {
    return Object.values(this.options.tokens ?? {}).filter(
      (value): value is string => typeof value === 'string',
    );
  }

  /** Runs every server's `auto_context_tool` with the person's message; returns system-prompt sections. */
  autoContext(userMessage: string): Promise<string[]> {
    return autoContextSections(this, userMessage);
  }

  /** One call, in its own span (server, tool, outcome): the request's traceparent names it. */
  private runTool(call: ToolCall): Promise<{ content: string; trace: TraceEntry; images?: ImageContent[] }> {
    const target = this.host.resolveTool(call.name);
    return inSpan(
      'mcp.tool_call',
      {
        'gen_ai.tool.name': call.name,
        ...(target ? { 'mcp.server': target.server, 'mcp.tool': target.tool } : {}),
      },
      async (span) => {
        const at = this.options.audit?.now();
        const result = await this.runToolTraced(call, target);
        const outcome = result.trace.ok
          ? 'ok'
          : result.trace.error?.startsWith('Error: not run')
            ? 'denied'
            : 'error';
        span.setAttribute('ai_assistant.outcome', outcome);
        if (outcome === 'error') recordMetric.toolError(this.options.workspace, target?.server, call.name);
        if (this.options.audit && at)
          recordToolAudit(this.options.audit, {
            at,
            call,
            target,
            trace: result.trace,
            outcome,
            approvedAt: this.approvedAt.get(call.id),
          });
        return result;
      },
    );
  }

  private async runToolTraced(
    call: ToolCall,
    target: ReturnType<ToolHost['resolveTool']>,
  ): Promise<{ content: string; trace: TraceEntry; images?: ImageContent[] }> {
    const { host, tools, emit, signal } = this;
    const where = target ? { server: target.server, tool: target.tool } : {};
    let started = performance.now();
    // What is shown and logged passes the redactor; the tool itself gets the real arguments.
    const shownArguments = host.redact(call.arguments, this.turnSecrets());
    emit({
      type: 'tool_start',
      callId: call.id,
      name: call.name,
      ...where,
      ...(target?.statusMessage ? { statusMessage: target.statusMessage } : {}),
      arguments: shownArguments,
    });
    let content: string;
    let ok = false;
    let images: ImageContent[] | undefined;
    let notRun = false;
    try {
      const definition = tools.find((tool) => tool.name === call.name);
      const problem =
        call.argumentsError ??
        (definition ? checkArguments(call.arguments, definition.inputSchema) : undefined);
      if (!definition) {
        // A tool of a server the person has not connected: they are told how (the app offers Connect).
        throw (
          host.unavailableTool?.(call.name) ??
          new ToolCallError('TOOL_NOT_FOUND', `Unknown tool "${call.name}"`, { tool: call.name })
        );
      } else if (problem) {
        content = `Error: invalid arguments for ${call.name}: ${problem}. Call the tool again with corrected arguments.`;
      } else {
        const local = this.options.local?.get(call.name);
        const refusal = definition.needsApproval
          ? await this.askApproval(call, definition, shownArguments)
          : undefined;
        if (local) {
          content = local(call.arguments);
          ok = true;
        } else if (refusal !== undefined) {
          content = refusal;
          notRun = true;
        } else {
          // The call's duration is the call's: the wait for the person is not the tool's time.
          if (definition.needsApproval) started = performance.now();
          const outcome = await host.callTool(
            call.name,
            call.arguments,
            this.callOptions({ id: call.id, name: call.name, ...(target ? { server: target.server } : {}) }),
          );
          content = outcome.isError ? `Error: ${outcome.text}` : outcome.text;
          ok = !outcome.isError;
          images = outcome.images;
          if (outcome.task?.status === 'working')
            emit({
              type: 'task_detached',
              callId: call.id,
              name: call.name,
              ...where,
              taskId: outcome.task.taskId,
            });
          if (images) emit({ type: 'tool_images', callId: call.id, name: call.name, ...where, images });
          if (outcome.files)
            emit({ type: 'tool_files', callId: call.id, name: call.name, ...where, files: outcome.files });
          if (outcome.app?.resourceUri && target && !outcome.isError)
            emit({
              type: 'tool_view',
              callId: call.id,
              name: call.name,
              server: target.server,
              tool: target.tool,
              resourceUri: outcome.app.resourceUri,
              arguments: shownArguments,
              summary: content,
              ...(outcome.app.result ? { result: outcome.app.result } : {}),
            });
        }
      }
    } catch (error) {
      if ((error instanceof HostError && error.code === 'CANCELLED') || signal?.aborted) {
        emit({
          type: 'tool_end',
          callId: call.id,
          name: call.name,
          ...where,
          ok: false,
          durationMs: performance.now() - started,
        });
        throw new CancelledError();
      }
      content = describeFailure(call.name, error, this);
    }
    // A refused call ran nothing: no duration, however long the person took to answer.
    const durationMs = notRun ? 0 : performance.now() - started;
    emit({ type: 'tool_end', callId: call.id, name: call.name, ...where, ok, durationMs });
    return {
      content,
      ...(images ? { images } : {}),
      trace: {
        name: call.name,
        ...where,
        arguments: shownArguments,
        durationMs,
        ok,
        ...(ok ? {} : { error: content }),
      },
    };
  }
}
