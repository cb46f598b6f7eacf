import { createRequire } from 'node:module';
import type {
  Attributes,
  Counter,
  Histogram,
  MeterProvider,
  Span,
  SpanStatusCode as SpanStatusCodes,
} from '@opentelemetry/api';

type Api = typeof import('@opentelemetry/api');

/**
 * Traces and metrics through the OpenTelemetry API, which is loaded only once an app has registered
 * something with it (the Slack bot does when `OTEL_EXPORTER_OTLP_ENDPOINT` is set): until then every
 * call here costs a property read, and importing host-core never loads the API. The API keeps its
 * registrations on `globalThis` under this symbol (shared by every copy of the API, CJS or ESM).
 * Nothing secret is recorded: names, ids, counts and outcomes only.
 */
const registrations = Symbol.for('opentelemetry.js.api.1');
const requireApi = createRequire(import.meta.url);
let api: Api | undefined;

function otel(): Api | undefined {
  if (api) return api;
  if ((globalThis as Record<symbol, unknown>)[registrations] === undefined) return undefined;
  api = requireApi('@opentelemetry/api') as Api;
  return api;
}

/** What `inSpan` hands `work` when nothing is traced. */
const notRecording = {
  setAttribute: () => notRecording,
  setAttributes: () => notRecording,
} as unknown as Span;

/** Runs `work` in a span that is the active one inside it (its children and the request's traceparent). */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const traced = otel();
  if (!traced) return work(notRecording);
  return traced.trace
    .getTracer('@ai-assistant/host-core')
    .startActiveSpan(name, { attributes }, async (span) => {
      try {
        return await work(span);
      } catch (error) {
        span.setStatus({
          code: 2 satisfies SpanStatusCodes.ERROR,
          message: error instanceof Error ? error.name : 'error',
        });
        throw error;
      } finally {
        span.end();
      }
    });
}

/**
 * The request's `_meta` with the active trace context (`traceparent`, `tracestate`), as MCP's trace
 * context convention carries it to the server; unchanged when nothing is traced.
 */
export function withTraceContext<T extends Record<string, unknown>>(meta: T): T {
  const traced = otel();
  traced?.propagation.inject(traced.context.active(), meta);
  return meta;
}

/** The active trace context alone, as a request's `_meta`; undefined when nothing is traced. */
export function traceContext(): Record<string, string> | undefined {
  const traced = otel();
  if (!traced) return undefined;
  const meta: Record<string, string> = {};
  traced.propagation.inject(traced.context.active(), meta);
  for (const _ in meta) return meta;
  return undefined;
}

interface Instruments {
  answers: Counter;
  answerDuration: Histogram;
  toolErrors: Counter;
  approvals: Counter;
}

let made: { provider: MeterProvider; instruments: Instruments } | undefined;

/** The instruments of the meter provider registered now (re-made when an app registers one). */
function instruments(): Instruments | undefined {
  const traced = otel();
  if (!traced) return undefined;
  const provider = traced.metrics.getMeterProvider();
  if (made?.provider !== provider) {
    const meter = provider.getMeter('@ai-assistant/host-core');
    made = {
      provider,
      instruments: {
        answers: meter.createCounter('ai_assistant.answers', { description: 'answers given' }),
        answerDuration: meter.createHistogram('ai_assistant.answer.duration', {
          description: 'time to answer a question',
          unit: 'ms',
        }),
        toolErrors: meter.createCounter('ai_assistant.tool.errors', {
          description: 'tool calls that failed',
        }),
        approvals: meter.createCounter('ai_assistant.approvals', {
          description: 'approval requests, by outcome',
        }),
      },
    };
  }
  return made.instruments;
}

/** Metrics of the loop, per workspace where the app names it. */
export const recordMetric = {
  answer(workspace: string | undefined, durationMs: number): void {
    const attributes = workspace ? { workspace } : {};
    const all = instruments();
    all?.answers.add(1, attributes);
    all?.answerDuration.record(durationMs, attributes);
  },
  toolError(workspace: string | undefined, server: string | undefined, tool: string): void {
    instruments()?.toolErrors.add(1, {
      ...(workspace ? { workspace } : {}),
      ...(server ? { server } : {}),
      tool,
    });
  },
  approval(workspace: string | undefined, outcome: string): void {
    instruments()?.approvals.add(1, { ...(workspace ? { workspace } : {}), outcome });
  },
};
