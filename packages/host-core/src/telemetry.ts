import {
  type Attributes,
  type Counter,
  context,
  type Histogram,
  type MeterProvider,
  metrics,
  propagation,
  type Span,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

/**
 * Traces and metrics through the OpenTelemetry API. Until an app registers an SDK (the Slack bot does
 * when `OTEL_EXPORTER_OTLP_ENDPOINT` is set) every call here is the API's no-op: a non-recording span,
 * no context manager, no propagator. Nothing secret is recorded: names, ids, counts and outcomes only.
 */
const tracer = trace.getTracer('@ai-assistant/host-core');

/** Runs `work` in a span that is the active one inside it (its children and the request's traceparent). */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
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
  propagation.inject(context.active(), meta);
  return meta;
}

interface Instruments {
  answers: Counter;
  answerDuration: Histogram;
  toolErrors: Counter;
  approvals: Counter;
}

let made: { provider: MeterProvider; instruments: Instruments } | undefined;

/** The instruments of the meter provider registered now (re-made when an app registers one). */
function instruments(): Instruments {
  const provider = metrics.getMeterProvider();
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
    instruments().answers.add(1, attributes);
    instruments().answerDuration.record(durationMs, attributes);
  },
  toolError(workspace: string | undefined, server: string | undefined, tool: string): void {
    instruments().toolErrors.add(1, {
      ...(workspace ? { workspace } : {}),
      ...(server ? { server } : {}),
      tool,
    });
  },
  approval(workspace: string | undefined, outcome: string): void {
    instruments().approvals.add(1, { ...(workspace ? { workspace } : {}), outcome });
  },
};
