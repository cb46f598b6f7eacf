import type { LLMProvider, Message } from '@ai-assistant/chat-types';
import type {
  CallToolOptions,
  ElicitationAnswer,
  ElicitationRequest,
  SamplingAnswer,
  SamplingRequest,
} from '../tool-host.js';
import type { ApprovalDecision, ApprovalRequest, ChatEvent } from './chat-types.js';

/** How much a turn's servers may ask of its model (`sampling/createMessage`). */
export interface SamplingLimits {
  /** Completions per turn (default 3). */
  callsPerTurn: number;
  /** Most tokens one completion may produce, whatever the server asks (default 1 000). */
  maxTokens: number;
}

export const defaultSamplingLimits: SamplingLimits = { callsPerTurn: 3, maxTokens: 1000 };

/** What a turn answers a server's questions with. */
export interface ServerQuestionsOptions {
  provider: LLMProvider;
  /** Where each completion's tokens are added: they run on the person's model, against their budget. */
  tally?: { inputTokens: number; outputTokens: number };
  limits: SamplingLimits;
  emit: (event: ChatEvent) => void;
  signal?: AbortSignal;
  approve?: (request: ApprovalRequest) => Promise<ApprovalDecision>;
  elicit?: (request: ElicitationRequest) => Promise<ElicitationAnswer>;
}

let turns = 0;

/**
 * One turn's answers to its servers' questions in the middle of a tool call. Elicitation goes to the
 * person (declined when nobody can be asked). Sampling runs on the turn's model only after the person
 * approves it (the same question as a tool approval), within the turn's limits, with the server's own
 * messages only: it never sees the person's conversation or other tools' results.
 */
export function serverQuestions(
  options: ServerQuestionsOptions,
): Pick<CallToolOptions, 'elicit' | 'sample' | 'requester'> {
  const requester = `turn-${++turns}`;
  let samples = 0;
  const elicit = options.elicit;
  return {
    requester,
    ...(elicit
      ? {
          elicit: async (request: ElicitationRequest) => {
            options.emit({ type: 'elicitation', server: request.server, mode: request.mode });
            return elicit(request);
          },
        }
      : {}),
    sample: async (request: SamplingRequest): Promise<SamplingAnswer> => {
      const { approve, provider, limits } = options;
      if (samples >= limits.callsPerTurn)
        throw new Error(`this answer already ran ${limits.callsPerTurn} completions for servers`);
      samples += 1;
      if (!approve) throw new Error('no one can approve a completion here, so none was run');
      const maxTokens = Math.min(request.maxTokens, limits.maxTokens);
      const decision = await approve({
        name: `sampling/${request.server}`,
        server: request.server,
        tool: 'sampling/createMessage',
        arguments: {
          ...(request.systemPrompt ? { systemPrompt: request.systemPrompt } : {}),
          messages: request.messages,
          maxTokens,
        },
        hints: { readOnly: true, destructive: false, idempotent: false, openWorld: false },
        sampling: true,
      });
      if (decision.outcome !== 'approved')
        throw new Error(
          decision.outcome === 'denied'
            ? `the person declined the completion${decision.reason ? `: ${decision.reason}` : ''}`
            : 'the person did not approve the completion in time',
        );
      const messages: Message[] = [
        ...(request.systemPrompt ? [{ role: 'system' as const, content: request.systemPrompt }] : []),
        ...request.messages,
      ];
      const response = await provider.complete(messages, {
        maxTokens,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      if (options.tally) {
        options.tally.inputTokens += response.usage?.inputTokens ?? 0;
        options.tally.outputTokens += response.usage?.outputTokens ?? 0;
      }
      options.emit({ type: 'sampling', server: request.server, model: response.model });
      return {
        text: response.content,
        model: response.model,
        stopReason: response.stopReason === 'max_tokens' ? 'maxTokens' : 'endTurn',
      };
    },
  };
}
