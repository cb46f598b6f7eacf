import { join } from 'node:path';
import { ScriptedProvider } from '@ai-assistant/test-kit';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatService } from '../src/chat/chat-service.js';
import { McpClientManager } from '../src/mcp/client-manager.js';
import { fixtures, nodeServer } from './helpers.js';

describe('OpenTelemetry: one trace per question, the tool span under the turn, traceparent to the server', () => {
  const exporter = new InMemorySpanExporter();
  const contextManager = new AsyncLocalStorageContextManager();
  let mcp: McpClientManager;

  beforeAll(async () => {
    context.setGlobalContextManager(contextManager.enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
    mcp = new McpClientManager();
    await mcp.connect([nodeServer('echo', join(fixtures, 'echo-server.mjs'))]);
  });

  afterAll(async () => {
    await mcp.close();
    trace.disable();
    propagation.disable();
    context.disable();
  });

  it('two questions make two traces: turn → model calls and the tool call; the server gets the tool span as parent', async () => {
    const provider = new ScriptedProvider([
      (call) =>
        call.messages.some((message) => message.role === 'tool')
          ? { text: 'done' }
          : { toolCalls: [{ id: 'c1', name: 'mcp__echo__show_meta', arguments: {} }] },
    ]);
    const chat = new ChatService({ provider, tools: mcp });
    const answers = [];
    for (const question of ['first', 'second'])
      answers.push(await chat.respond({ history: [], userMessage: question, workspace: 'T1' }));

    const spans = exporter.getFinishedSpans();
    const turns = spans.filter((span) => span.name === 'chat.turn');
    expect(turns).toHaveLength(2);
    expect(new Set(turns.map((span) => span.spanContext().traceId)).size).toBe(2);
    for (const [index, turn] of turns.entries()) {
      const traceId = turn.spanContext().traceId;
      const inTrace = spans.filter((span) => span.spanContext().traceId === traceId);
      const tool = inTrace.find((span) => span.name === 'mcp.tool_call');
      const models = inTrace.filter((span) => span.name === 'gen_ai.chat');
      expect(turn.attributes).toMatchObject({ workspace: 'T1' });
      expect(models.map((span) => span.parentSpanContext?.spanId)).toEqual([
        turn.spanContext().spanId,
        turn.spanContext().spanId,
      ]);
      expect(tool?.parentSpanContext?.spanId).toBe(turn.spanContext().spanId);
      expect(tool?.attributes).toMatchObject({
        'mcp.server': 'echo',
        'mcp.tool': 'show_meta',
        'ai_assistant.outcome': 'ok',
      });
      // The server saw the tool span as the parent of its request.
      const toolMessage = provider.calls
        .filter((call) => call.messages.some((message) => message.role === 'tool'))
        [index]?.messages.find((message) => message.role === 'tool');
      const meta = JSON.parse(toolMessage?.content ?? '{}') as { traceparent?: string };
      expect(meta.traceparent).toBe(`00-${traceId}-${tool?.spanContext().spanId}-01`);
    }
    expect(answers.map((answer) => answer.text)).toEqual(['done', 'done']);
  });
});
