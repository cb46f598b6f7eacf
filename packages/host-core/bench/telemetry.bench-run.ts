import { join } from 'node:path';
import { ScriptedProvider } from '@ai-assistant/test-kit';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { it } from 'vitest';
import { ChatService } from '../src/chat/chat-service.js';
import { McpClientManager } from '../src/mcp/client-manager.js';
import { fixtures, nodeServer } from '../test/helpers.js';
import { percentile, printTable, verdict } from './table.js';

it('tracing cost per turn', async () => {
  const mcp = new McpClientManager();
  await mcp.connect([nodeServer('echo', join(fixtures, 'echo-server.mjs'))]);
  // A turn: one model call asking for one tool call, then the answer.
  const provider = new ScriptedProvider([
    (call) =>
      call.messages.some((message) => message.role === 'tool')
        ? { text: 'done' }
        : { toolCalls: [{ id: 'c', name: 'mcp__echo__echo', arguments: { message: 'x' } }] },
  ]);
  const chat = new ChatService({ provider, tools: mcp });
  const turn = async () => {
    const started = performance.now();
    await chat.respond({ history: [], userMessage: 'go', workspace: 'T1' });
    return performance.now() - started;
  };
  const exporter = new InMemorySpanExporter();
  const on = () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] }),
    );
  };
  const off = () => {
    trace.disable();
    propagation.disable();
    context.disable();
    exporter.reset();
  };
  const untraced: number[] = [];
  const traced: number[] = [];
  for (let index = 0; index < 50; index++) await turn();
  // Rounds of 50 turns each way, alternating, so drift hits both.
  for (let round = 0; round < 10; round++) {
    for (let index = 0; index < 50; index++) untraced.push(await turn());
    on();
    for (let index = 0; index < 50; index++) traced.push(await turn());
    off();
  }
  await mcp.close();
  const added = percentile(traced, 0.5) - percentile(untraced, 0.5);
  printTable('@ai-assistant/host-core tracing benchmark (a turn: 2 model calls, 1 tool call)', [
    [
      'turn p50 traced / untraced (500 turns each)',
      `${percentile(traced, 0.5).toFixed(3)} / ${percentile(untraced, 0.5).toFixed(3)} ms`,
    ],
    ['added by tracing per turn, p50 (aim < 0.5 ms)', `${added.toFixed(3)} ms ${verdict(added < 0.5)}`],
  ]);
});
