import type { LLMProvider, LLMResponse, Message, ToolDefinition } from '@ai-assistant/chat-types';
import { type Logger, silentLogger } from '@ai-assistant/chat-types';
import {
  defaultToolChoice,
  findToolsName,
  ToolChooser,
  type ToolOffer,
  type TurnChoice,
} from '../choice/tool-choice.js';
import { CancelledError } from '../errors.js';
import { inSpan, recordMetric } from '../telemetry.js';
import type { ToolHost } from '../tool-host.js';
import { AnswerDeadline, defaultAnswerTimeoutMs } from './answer-deadline.js';
import { abortable } from './cancellation.js';
import type { ChatEvent, ChatServiceOptions, RespondInput, RespondResult, TraceEntry } from './chat-types.js';
import { defaultSamplingLimits, type SamplingLimits, serverQuestions } from './server-questions.js';
import { TurnTools } from './turn-tools.js';
import { userQuestion, withAttached } from './user-question.js';

/** What a turn used so far: model tokens (its own and its servers' completions) and tool calls. */
type Tally = { inputTokens: number; outputTokens: number; toolCalls: number };

export type {
  ApprovalDecision,
  ApprovalRequest,
  ChatEvent,
  ChatServiceOptions,
  RespondInput,
  RespondResult,
  ToolAuditEntry,
  TraceEntry,
} from './chat-types.js';
export type { SamplingLimits } from './server-questions.js';

/** Calls run per round by default (`MAX_TOOL_CALLS_PER_ROUND`). */
export const defaultMaxToolCallsPerRound = 16;

/** The system-prompt note for servers whose tools cannot run now. */
function unavailableNote(servers: Array<{ server: string; restarting: boolean }>): string | undefined {
  if (servers.length === 0) return undefined;
  const names = servers.map((entry) => `"${entry.server}"`).join(', ');
  return (
    `The tools of ${names} are temporarily unavailable (the server is ${servers.every((entry) => entry.restarting) ? 'restarting' : 'down'}). ` +
    'If the question needs them, tell the user that this information cannot be retrieved right now; do not answer it from memory as if it were current.'
  );
}

/** The default base system prompt. */
export const defaultSystemPrompt = [
  'You are a helpful assistant in a team chat. Answer in the language the user writes in.',
  'Use the available tools when they give better or fresher information than you have, and base your answer on their results.',
  'When a tool fails, say so plainly and answer with what you know. Keep answers concise.',
].join('\n');

const timeMessage =
  'The time for this answer is almost up, so no more tools can be used. Answer now with the information ' +
  'gathered so far, and say briefly if something could not be looked up.';

/** The seed's words first (the people asking write Japanese), then the same in English with the detail. */
function limitMessage(limit: number): string {
  return (
    'ツール呼び出しの上限に達しました。現在の情報で回答してください。\n' +
    `(The tool-call limit for this answer, ${limit} rounds, has been reached, so no more tools can be used. ` +
    'Answer now with the information gathered so far, and say briefly if something could not be looked up.)'
  );
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
  private readonly maxToolCallsPerRound: number;
  private readonly answerTimeoutMs: number;
  private readonly logger: Logger;
  private readonly samplingLimits: SamplingLimits;
  private readonly usage: ChatServiceOptions['usage'];
  private readonly audit: ChatServiceOptions['audit'];
  private readonly now: () => Date;
  private readonly chooser: ToolChooser | undefined;

  constructor(options: ChatServiceOptions) {
    this.provider = options.provider;
    this.tools = options.tools;
    this.systemPrompt = options.systemPrompt ?? defaultSystemPrompt;
    this.maxIterations = Math.max(1, options.maxIterations ?? 10);
    this.toolTimeoutMs = options.toolTimeoutMs;
    this.maxToolCallsPerRound = Math.max(1, options.maxToolCallsPerRound ?? defaultMaxToolCallsPerRound);
    this.answerTimeoutMs = Math.max(1, options.answerTimeoutMs ?? defaultAnswerTimeoutMs);
    this.samplingLimits = { ...defaultSamplingLimits, ...options.sampling };
    this.logger = options.logger ?? silentLogger;
    this.usage = options.usage;
    this.audit = options.audit;
    this.now = options.now ?? (() => new Date());
    this.chooser =
      options.toolChoice === false
        ? undefined
        : new ToolChooser({ ...defaultToolChoice, ...options.toolChoice }, options.toolRanker);
  }

  /** The loop's settings as people may read them (the host's `host://settings`): nothing secret. */
  settings(): Record<string, unknown> {
    return {
      provider: this.provider.name,
      toolRoundsPerAnswer: this.maxIterations,
      toolCallsPerRound: this.maxToolCallsPerRound,
      answerTimeoutMs: this.answerTimeoutMs,
      ...(this.toolTimeoutMs ? { toolCallTimeoutMs: this.toolTimeoutMs } : {}),
      sampling: this.samplingLimits,
      toolChoice: this.chooser ? this.chooser.settings : 'every tool offered',
    };
  }

  /**
   * What a question would be offered from `tools` (a person's view), and why: for `/assistant tools` and
   * the terminal's `/tools <words>`. The first round's offer, as a turn would make it.
   */
  async toolsFor(tools: ToolHost, question: string): Promise<{ catalog: number; offer: ToolOffer }> {
    const all = tools.listTools();
    const choice = await this.chooser?.turn({
      tools: all,
      originOf: (name) => tools.resolveTool(name) ?? undefined,
      question,
      history: [],
    });
    const offer: ToolOffer = choice?.offer() ?? {
      tools: all,
      reasons: new Map(all.map((tool) => [tool.name, { kind: 'all' as const }])),
      narrowed: false,
    };
    return { catalog: all.length, offer };
  }

  /**
   * Answers one user message within the answer's deadline (`answerTimeoutMs`); rejects with
   * {@link CancelledError} when `signal` aborts or the deadline passes.
   */
  respond(input: RespondInput): Promise<RespondResult> {
    const started = performance.now();
    const asker = input.person ?? (input.tools ?? this.tools)?.asker?.();
    const workspace = input.workspace ?? asker?.workspace;
    return inSpan('chat.turn', workspace ? { workspace } : {}, async (span) => {
      const admitted = asker && this.usage ? await this.usage.admit(asker) : { ok: true as const };
      if (!admitted.ok) {
        span.setAttribute('ai_assistant.refused', 'usage');
        return refusedTurn(input, admitted.message);
      }
      const deadline = new AnswerDeadline(this.answerTimeoutMs);
      // What the turn used, counted as it goes: a failed or cancelled turn's calls and tokens count too.
      const tally: Tally = { inputTokens: 0, outputTokens: 0, toolCalls: 0 };
      try {
        const signal = input.signal ? AbortSignal.any([input.signal, deadline.signal]) : deadline.signal;
        // The clock stops while a person is asked: their time is not the model's.
        const { approve, elicit } = input;
        const turnInput: RespondInput = {
          ...(await abortable(withAttached(input), signal)),
          ...(workspace ? { workspace } : {}),
          signal,
          ...(approve ? { approve: (request) => deadline.during(() => approve(request)) } : {}),
          ...(elicit ? { elicit: (request) => deadline.during(() => elicit(request)) } : {}),
        };
        const result = await this.turn(turnInput, tally, asker, deadline.wrapUp);
        span.setAttributes({
          'ai_assistant.rounds': result.rounds,
          'ai_assistant.tool_calls': result.trace.length,
        });
        recordMetric.answer(workspace, performance.now() - started);
        return result;
      } catch (error) {
        if (error instanceof CancelledError && deadline.signal.aborted && !input.signal?.aborted)
          throw new CancelledError(
            `The answer was not finished within its ${deadline.ms / 1000} s and was stopped; ask again, or in smaller parts.`,
          );
        throw error;
      } finally {
        deadline.clear();
        if (asker && this.usage)
          await this.usage
            .record(asker, { questions: 1, ...tally }, admitted.reservation)
            .catch((error: unknown) => this.logger.warn({ error: String(error) }, 'usage not recorded'));
      }
    });
  }

  /**
   * The tools one round offers: the whole catalog when it is small, else the turn's choice. The debug log
   * records what was offered and why.
   */
  private offer(choice: TurnChoice | undefined, tools: ToolDefinition[], round: number): ToolDefinition[] {
    if (!choice?.narrowed) return tools;
    const offer = choice.offer();
    const why = [...offer.reasons].map(([name, reason]) =>
      reason.kind === 'match' ? `${name} (${reason.words.join(' ')})` : `${name} (${reason.kind})`,
    );
    this.logger.debug(
      { round, catalog: tools.length, offered: offer.tools.length, tools: why },
      'tools offered this round',
    );
    return offer.tools;
  }

  /** One model call, in its own span (model, tokens); its tokens are added to the turn's tally. */
  private model(call: () => Promise<LLMResponse>, tally: Tally): Promise<LLMResponse> {
    return inSpan(
      'gen_ai.chat',
      { 'gen_ai.operation.name': 'chat', 'gen_ai.system': this.provider.name },
      async (span) => {
        const response = await call();
        tally.inputTokens += response.usage?.inputTokens ?? 0;
        tally.outputTokens += response.usage?.outputTokens ?? 0;
        span.setAttributes({
          'gen_ai.response.model': response.model,
          ...(response.usage
            ? {
                'gen_ai.usage.input_tokens': response.usage.inputTokens,
                'gen_ai.usage.output_tokens': response.usage.outputTokens,
              }
            : {}),
        });
        return response;
      },
    );
  }

  private async turn(
    input: RespondInput,
    tally: Tally,
    asker: { workspace: string; user: string } | undefined,
    wrapUp: AbortSignal,
  ): Promise<RespondResult> {
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
      usedTools: choice?.usedTools() ?? [...(input.usedTools ?? [])],
    });
    let choice: TurnChoice | undefined;

    const question = userQuestion(input, this.provider.supportsImages === true);
    const toolHost = input.tools ?? this.tools;
    const tools = toolHost?.listTools() ?? [];
    if (!toolHost || tools.length === 0) {
      // MCP off (or no tool available): exactly one plain model call.
      const messages: Message[] = [
        { role: 'system', content: this.systemPrompt },
        ...input.history,
        question,
      ];
      const response = await abortable(
        this.model(() => this.provider.complete(messages, completionOptions), tally),
        signal,
      );
      return finish(response.content, [], 0, false);
    }

    const host = toolHost;
    const chosen = await this.chooser?.turn({
      tools,
      originOf: (name) => host.resolveTool(name) ?? undefined,
      question: input.userMessage,
      history: input.history,
      ...(input.usedTools ? { used: input.usedTools } : {}),
    });
    choice = chosen;
    const search = chosen?.narrowed ? chosen.definition(findToolsName) : undefined;
    const turn = new TurnTools({
      host,
      tools: search ? [...tools, search] : tools,
      ...(chosen && search
        ? {
            local: new Map([
              [findToolsName, (args: Record<string, unknown>) => chosen.find(String(args.query ?? '')).text],
            ]),
          }
        : {}),
      emit,
      logger: this.logger,
      signal,
      tokens: input.tokens,
      toolTimeoutMs: this.toolTimeoutMs,
      maxCallsPerRound: this.maxToolCallsPerRound,
      images: this.provider.supportsImages === true,
      ...(input.workspace ? { workspace: input.workspace } : {}),
      ...(asker && this.audit
        ? { audit: { asker, record: this.audit, now: this.now, logger: this.logger } }
        : {}),
      ...(input.approve ? { approve: input.approve } : {}),
      ...(input.detachTasks ? { detach: wrapUp } : {}),
      questions: serverQuestions({
        provider: this.provider,
        tally,
        limits: this.samplingLimits,
        emit,
        ...(signal ? { signal } : {}),
        ...(input.approve ? { approve: input.approve } : {}),
        ...(input.elicit ? { elicit: input.elicit } : {}),
      }),
    });
    const note = unavailableNote(host.unavailableServers());
    const system = [
      this.systemPrompt,
      ...host.systemInstructions(),
      ...(note ? [note] : []),
      ...(await turn.autoContext(input.autoContextQuery ?? input.userMessage)),
    ];
    const messages: Message[] = [
      { role: 'system', content: system.join('\n\n') },
      ...input.history,
      question,
    ];
    const trace = turn.trace;

    let rounds = 0;
    for (let round = 1; round <= this.maxIterations; round++) {
      // The answer's time is nearly up: no new round of tools, the answer from what is known.
      if (wrapUp.aborted) break;
      rounds = round;
      const offered = this.offer(chosen, tools, round);
      const response = await abortable(
        this.model(() => this.provider.completeWithTools(messages, offered, completionOptions), tally),
        signal,
      );
      chosen?.called(response.toolCalls.map((call) => call.name));
      if (response.toolCalls.length === 0) return finish(response.content, trace, round, false);

      messages.push({ role: 'assistant', content: response.content, toolCalls: response.toolCalls });
      tally.toolCalls += response.toolCalls.length;
      // All calls of a round run concurrently; their results keep the order the model asked in.
      messages.push(...(await abortable(turn.round(response.toolCalls), signal)));
    }

    // A model that keeps calling tools forever is a bug; end with a plain answer from what we have.
    const outOfTime = rounds < this.maxIterations;
    this.logger.warn(
      { rounds, calls: trace.length },
      outOfTime ? 'answer time nearly up; asking for the answer' : 'tool-call limit reached',
    );
    messages.push({ role: 'user', content: outOfTime ? timeMessage : limitMessage(this.maxIterations) });
    // The history holds tool calls, so the tools go along (Anthropic refuses tool blocks without them),
    // with tool choice "none"; a call the model makes anyway is ignored.
    const final = await abortable(
      this.model(
        () =>
          this.provider.completeWithTools(messages, chosen?.offer().tools ?? tools, {
            ...completionOptions,
            toolChoice: 'none',
          }),
        tally,
      ),
      signal,
    );
    return finish(final.content, trace, rounds, true);
  }
}

/** A turn the budgets or the rate refused: their words are the answer; the model was not called. */
function refusedTurn(input: RespondInput, message: string): RespondResult {
  return {
    usedTools: [...(input.usedTools ?? [])],
    text: message,
    refused: 'usage',
    trace: [],
    rounds: 0,
    limitReached: false,
    history: [
      ...input.history,
      { role: 'user', content: input.userMessage },
      { role: 'assistant', content: message },
    ],
  };
}
