import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { recordingLogger } from '@ai-assistant/test-kit';
import { metrics, trace } from '@opentelemetry/api';
import { afterAll, describe, expect, it } from 'vitest';
import { startTelemetry } from '../src/telemetry.js';

describe('OpenTelemetry export (OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  const received: Array<{ path: string; body: string }> = [];
  const collector = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ path: request.url ?? '', body });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  afterAll(() => new Promise<void>((resolve) => collector.close(() => resolve())));

  it('is off without the variable, and nothing of the SDK is loaded', async () => {
    expect(await startTelemetry({}, recordingLogger())).toBeUndefined();
  });

  it('with it, spans and metrics reach the collector over OTLP/HTTP at shutdown', async () => {
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    const previous = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    // The OTLP exporters read the standard variable themselves.
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint;
    try {
      const telemetry = await startTelemetry(
        { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: 'bot-under-test' },
        recordingLogger(),
      );
      expect(telemetry).toBeDefined();
      trace.getTracer('test').startActiveSpan('chat.turn', (span) => span.end());
      metrics.getMeter('test').createCounter('ai_assistant.answers').add(1, { workspace: 'T1' });
      await telemetry?.shutdown();
    } finally {
      if (previous === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
      else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = previous;
    }
    const traces = received.filter((request) => request.path === '/v1/traces');
    const metricExports = received.filter((request) => request.path === '/v1/metrics');
    expect(traces.map((request) => request.body).join('')).toContain('chat.turn');
    expect(traces.map((request) => request.body).join('')).toContain('bot-under-test');
    expect(metricExports.map((request) => request.body).join('')).toContain('ai_assistant.answers');
  });
});
