import type { Logger } from '@ai-assistant/host-core';

/** A running OpenTelemetry SDK: flush and stop it at shutdown. */
export interface Telemetry {
  shutdown(): Promise<void>;
}

/**
 * OpenTelemetry for operators: when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, traces (the Slack event, the
 * turn, each model call, each tool call) and metrics (answers, latency, tool errors, approvals, per
 * workspace) are exported over OTLP/HTTP, and each MCP request carries its `traceparent`. Unset, the SDK
 * is not even loaded: host-core's calls stay the API's no-ops. The exporters read the standard
 * `OTEL_EXPORTER_OTLP_*` variables; `OTEL_SERVICE_NAME` names the service (default ai-assistant).
 */
export async function startTelemetry(env: NodeJS.ProcessEnv, logger: Logger): Promise<Telemetry | undefined> {
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!endpoint) return undefined;
  const [{ metrics }, traceNode, { OTLPTraceExporter }, sdkMetrics, { OTLPMetricExporter }, resources] =
    await Promise.all([
      import('@opentelemetry/api'),
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/sdk-metrics'),
      import('@opentelemetry/exporter-metrics-otlp-http'),
      import('@opentelemetry/resources'),
    ]);
  const resource = resources.resourceFromAttributes({
    'service.name': env.OTEL_SERVICE_NAME?.trim() || 'ai-assistant',
  });
  const tracing = new traceNode.NodeTracerProvider({
    resource,
    spanProcessors: [new traceNode.BatchSpanProcessor(new OTLPTraceExporter())],
  });
  // The AsyncLocalStorage context manager and the W3C trace-context propagator.
  tracing.register();
  const meters = new sdkMetrics.MeterProvider({
    resource,
    readers: [
      new sdkMetrics.PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter(),
        exportIntervalMillis: Number(env.OTEL_METRIC_EXPORT_INTERVAL) || 60_000,
      }),
    ],
  });
  metrics.setGlobalMeterProvider(meters);
  logger.info({ endpoint: new URL(endpoint).origin }, 'OpenTelemetry: exporting traces and metrics');
  return {
    async shutdown() {
      await Promise.allSettled([tracing.shutdown(), meters.shutdown()]);
    },
  };
}
