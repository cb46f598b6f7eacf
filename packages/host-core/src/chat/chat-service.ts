import { type Logger, silentLogger } from '../logger.js';
import {
  McpToolCancelledError,
  McpToolCredentialsError,
  McpToolError,
  McpToolNotFoundError,
  McpToolTimeoutError,
} from '../mcp/errors.js';
import type { RequestTokens } from '../mcp/header-templates.js';
import { checkArguments, firstRequiredString } from '../tools/validate-arguments.js';
import type { LLMProvider, Message, ToolCall, ToolDefinition } from '../types.js';
import type { ChatEvent, ChatServiceOptions, RespondInput, RespondResult, TraceEntry } from './chat-types.js';
import type { ToolHost } from './tool-host.js';

export type { ChatEvent, ChatServiceOptions, RespondInput, RespondResult, TraceEntry } from './chat-types.js';

/** The turn was aborted by its signal. */
export class ChatCancelledError extends Error {
  override name = 'ChatCancelledError';
  readonly code = 'CANCELLED';
  constructor() {
    super('The answer was cancelled before it was finished.');
  }
}

/** The default base system prompt. */
export const defaultSystemPrompt = [
  'You are a helpful assistant in a team chat. Answer in the language the user writes in.',
  'Use the available tools when they give better or fresher information than you have, and base your answer on their results.',
  'When a tool fails, say so plainly and answer with what you know. Keep answers concise.',
].join('\n');

function limitMessage(limit: number): string {
  return (
    `The tool-call limit for this answer (${limit} rounds) has been reached, so no more tools can be used. ` +
    'Answer now with the information gathered so far, and say briefly if something could not be looked up.'
  );
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new ChatCancelledError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new ChatCancelledError());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(signal.aborted ? new ChatCancelledError() : error);
      },
    );
  });
}

/**
 * One user message in, one text answer out: the tool-calling loop with its safety valves
 * (bounded rounds, per-call timeouts, every failure turned into a result the model can read).
 */
export class ChatService {
  private readonly provider: LLMProvider;
  private readonly tools: ToolHost | undefined;
  private readonly systemPrompt: string;
  private readonly maxIterations: number;
  private readonly toolTimeoutMs: number | undefined;
  private readonly logger: Logger;

  constructor(options: ChatServiceOptions) {
    this.provider = options.provider;
    this.tools = options.tools;
    this.systemPrompt = options.systemPrompt ?? defaultSystemPrompt;
    this.maxIterations = Math.max(1, options.maxIterations ?? 10);
    this.toolTimeoutMs = options.toolTimeoutMs;
    this.logger = options.logger ?? silentLogger;
  }

  /** Answers one user message; rejects with {@link ChatCancelledError} when `signal` aborts. */
  async respond(input: RespondInput): Promise<RespondResult> {
    const { signal, onEvent } = input;
    const emit = (event: ChatEvent) => {
      try {
        onEvent?.(event);
      } catch (error) {
        this.logger.warn({ error: String(error) }, 'chat event listener threw');
      }
    };
    const completionOptions = {
      signal,
      ...(input.streamText ? { onTextDelta: (text: string) => emit({ type: 'text_delta', text }) } : {}),
    };
    const finish = (
      text: string,
      trace: TraceEntry[],
      rounds: number,
      limitReached: boolean,
    ): RespondResult => ({
      text,
      trace,
      rounds,
      limitReached,
      history: [
        ...input.history,
        { role: 'user', content: input.userMessage },
        { role: 'assistant', content: text },
      ],
    });

    const tools = this.tools?.listTools() ?? [];
    if (!this.tools || tools.length === 0) {
      // MCP off (or no tool available): exactly one plain model call.
      const messages: Message[] = [
        { role: 'system', content: this.systemPrompt },
        ...input.history,
        { role: 'user', content: input.userMessage },
      ];
      const response = await abortable(this.provider.complete(messages, completionOptions), signal);
      return finish(response.content, [], 0, false);
    }

    const host = this.tools;
    const system = [
      this.systemPrompt,
      ...host.systemInstructions(),
      ...(await this.autoContext(host, input, emit)),
    ];
    const messages: Message[] = [
      { role: 'system', content: system.join('\n\n') },
      ...input.history,
      { role: 'user', content: input.userMessage },
    ];
    const trace: TraceEntry[] = [];
    const instructed = new Set<string>();

    for (let round = 1; round <= this.maxIterations; round++) {
      const response = await abortable(
        this.provider.completeWithTools(messages, tools, completionOptions),
        signal,
      );
      if (response.toolCalls.length === 0) return finish(response.content, trace, round, false);

      messages.push({ role: 'assistant', content: response.content, toolCalls: response.toolCalls });
      // All calls of a round run concurrently; their results keep the order the model asked in.
      const results = await abortable(
        Promise.all(
          response.toolCalls.map((call) => this.runTool(host, tools, call, signal, emit, input.tokens)),
        ),
        signal,
      );
      results.forEach((result, index) => {
        const call = response.toolCalls[index] as ToolCall;
        trace.push(result.trace);
        let content = result.content;
        // A server's response_instruction follows its first result of the turn, never again.
        const instruction = host.responseInstructionFor(call.name);
        const server = result.trace.server;
        if (instruction && server && !instructed.has(server)) {
          instructed.add(server);
          content = `${content}\n\n[Instruction for using this result] ${instruction}`;
        }
        messages.push({ role: 'tool', toolCallId: call.id, content, isError: !result.trace.ok });
      });
    }

    // A model that keeps calling tools forever is a bug; end with a plain answer from what we have.
    this.logger.warn({ rounds: this.maxIterations, calls: trace.length }, 'tool-call limit reached');
    messages.push({ role: 'user', content: limitMessage(this.maxIterations) });
    // The history holds tool calls, so the tools go along (Anthropic refuses tool blocks without them),
    // with tool choice "none"; a call the model makes anyway is ignored.
    const final = await abortable(
      this.provider.completeWithTools(messages, tools, { ...completionOptions, toolChoice: 'none' }),
      signal,
    );
    return finish(final.content, trace, this.maxIterations, true);
  }

  private async autoContext(
    host: ToolHost,
    input: RespondInput,
    emit: (event: ChatEvent) => void,
  ): Promise<string[]> {
    const sections: string[] = [];
    for (const [index, tool] of host.autoContextTools().entries()) {
      const parameter = firstRequiredString(tool.inputSchema);
      if (!parameter) {
        this.logger.warn(
          { server: tool.server, tool: tool.name },
          'auto_context_tool has no string parameter; skipped',
        );
        continue;
      }
      // Shown like any other tool call, so a person sees the lookup happen.
      const target = host.resolveTool(tool.name);
      const event = {
        callId: `auto-context-${index}`,
        name: tool.name,
        ...(target ? { server: target.server, tool: target.tool } : {}),
      };
      const arguments_ = host.redact({ [parameter]: input.userMessage }) as Record<string, unknown>;
      emit({ type: 'tool_start', ...event, arguments: arguments_, autoContext: true });
      const started = performance.now();
      let ok = false;
      try {
        const outcome = await host.callTool(
          tool.name,
          { [parameter]: input.userMessage },
          {
            signal: input.signal,
            tokens: input.tokens,
            ...(this.toolTimeoutMs ? { timeoutMs: this.toolTimeoutMs } : {}),
          },
        );
        if (outcome.isError) throw new Error(outcome.text);
        ok = true;
        const instruction = host.responseInstructionFor(tool.name);
        sections.push(
          `Context from ${tool.server} (looked up for this message):\n${outcome.text}${instruction ? `\n\n${instruction}` : ''}`,
        );
      } catch (error) {
        if (input.signal?.aborted) throw new ChatCancelledError();
        this.logger.warn(
          { server: tool.server, tool: tool.name, error: String(error) },
          'auto-context tool failed; skipped',
        );
      } finally {
        emit({ type: 'tool_end', ...event, ok, durationMs: performance.now() - started });
      }
    }
    return sections;
  }

  private async runTool(
    host: ToolHost,
    tools: ToolDefinition[],
    call: ToolCall,
    signal: AbortSignal | undefined,
    emit: (event: ChatEvent) => void,
    tokens: RequestTokens | undefined,
  ): Promise<{ content: string; trace: TraceEntry }> {
    const target = host.resolveTool(call.name);
    const where = target ? { server: target.server, tool: target.tool } : {};
    const started = performance.now();
    // What is shown and logged passes the redactor; the tool itself gets the real arguments.
    const shownArguments = host.redact(call.arguments);
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
    try {
      const definition = tools.find((tool) => tool.name === call.name);
      const problem =
        call.argumentsError ??
        (definition ? checkArguments(call.arguments, definition.inputSchema) : undefined);
      if (!definition) {
        throw new McpToolNotFoundError(call.name);
      } else if (problem) {
        content = `Error: invalid arguments for ${call.name}: ${problem}. Call the tool again with corrected arguments.`;
      } else {
        const outcome = await host.callTool(call.name, call.arguments, {
          signal,
          tokens,
          ...(this.toolTimeoutMs ? { timeoutMs: this.toolTimeoutMs } : {}),
        });
        content = outcome.isError ? `Error: ${outcome.text}` : outcome.text;
        ok = !outcome.isError;
      }
    } catch (error) {
      if (error instanceof McpToolCancelledError || signal?.aborted) {
        emit({
          type: 'tool_end',
          callId: call.id,
          name: call.name,
          ...where,
          ok: false,
          durationMs: performance.now() - started,
        });
        throw new ChatCancelledError();
      }
      content = this.describeFailure(call.name, tools, error);
    }
    const durationMs = performance.now() - started;
    emit({ type: 'tool_end', callId: call.id, name: call.name, ...where, ok, durationMs });
    return {
      content,
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

  private describeFailure(name: string, tools: ToolDefinition[], error: unknown): string {
    if (error instanceof McpToolNotFoundError) {
      const available = tools.map((tool) => tool.name).join(', ');
      return `Error: there is no tool named "${name}". Available tools: ${available}.`;
    }
    if (error instanceof McpToolCredentialsError) {
      return `Error: ${name} needs credentials that were not supplied (${error.placeholders.join(', ')}). Tell the user this tool needs their credentials to be set up.`;
    }
    if (error instanceof McpToolTimeoutError) {
      return `Error: ${name} timed out after ${error.timeoutMs} ms (its data source did not answer). Tell the user it could not be looked up right now.`;
    }
    this.logger.warn({ tool: name, error: String(error) }, 'tool call failed');
    const detail = error instanceof McpToolError ? error.message : 'the tool failed unexpectedly';
    return `Error: ${detail}. Tell the user this information could not be retrieved.`;
  }
}
