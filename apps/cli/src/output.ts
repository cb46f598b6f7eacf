import type { ChatEvent, LLMProvider } from '@ai-assistant/host-core';
import { LLMProviderError, llmSetupHint, ProviderConfigError } from '@ai-assistant/llm-providers';
import { type DestinationStream, pino } from 'pino';
import pretty from 'pino-pretty';

// What the terminal chat prints besides answers: log lines, tool progress, and failures in plain words.

/** Readable log lines on a terminal (or LOG_FORMAT=pretty), JSON lines otherwise (LOG_FORMAT=json). */
export function logDestination(env: NodeJS.ProcessEnv, fd: 2): DestinationStream {
  const readable = env.LOG_FORMAT === 'pretty' || (env.LOG_FORMAT !== 'json' && process.stderr.isTTY);
  return readable
    ? pretty({
        destination: fd,
        colorize: process.stderr.isTTY,
        translateTime: 'SYS:HH:MM:ss',
        ignore: 'pid,hostname',
      })
    : pino.destination(fd);
}

/** What a server's supervisor says about it at each retry (host-core's log messages). */
const serverStateMessages = new Set([
  'MCP server failed to start',
  'MCP server down; restarting it',
  'MCP server disconnected',
  'MCP server slow to start; trying again with a longer limit',
]);

/**
 * pino hooks for the terminal chat: a server that keeps failing is printed once, and again only when what
 * is said of it changes (another message, another reason); every retry would otherwise print the same
 * block over the prompt. /servers shows its state at any time.
 */
export function onceForEachServerState(): NonNullable<Parameters<typeof pino>[0]>['hooks'] {
  const last = new Map<string, string>();
  return {
    logMethod(args, method) {
      const [fields, message] = args as unknown[];
      const server = (fields as { server?: unknown } | undefined)?.server;
      if (typeof message === 'string' && typeof server === 'string' && serverStateMessages.has(message)) {
        const said = `${message}\u0000${String((fields as { reason?: unknown }).reason ?? '')}`;
        const key = `${server}\u0000${message}`;
        if (last.get(key) === said) return;
        last.set(key, said);
      }
      method.apply(this, args);
    },
  };
}

/** `server › tool`, so the same tool name on two servers can be told apart. */
function toolLabel(event: { server?: string; tool?: string; name: string }): string {
  return event.server && event.tool ? `${event.server} › ${event.tool}` : event.name;
}

/** When each call last printed its progress: at most one line a second per call. */
const progressShownAt = new Map<string, number>();

export function describeEvent(event: ChatEvent): string | undefined {
  if (event.type === 'tool_progress') {
    const now = Date.now();
    if (now - (progressShownAt.get(event.callId) ?? 0) < 1000) return undefined;
    progressShownAt.set(event.callId, now);
    const amount = event.total ? `${Math.round((event.progress / event.total) * 100)}%` : `${event.progress}`;
    return `  … ${event.name}: ${amount}${event.message ? ` — ${event.message}` : ''}\n`;
  }
  if (event.type === 'tool_end') progressShownAt.delete(event.callId);
  if (event.type === 'tool_start')
    return `  ${event.autoContext ? '🔎' : '🔧'} ${toolLabel(event)}(${JSON.stringify(event.arguments)}) …\n`;
  if (event.type === 'tool_end')
    return `  ${event.ok ? '✓' : '✗'} ${toolLabel(event)} ${Math.round(event.durationMs)} ms\n`;
  return undefined;
}

/** The message naming the variables to set, once per missing model. */
export function setupMessage(error: ProviderConfigError): string {
  return `${error.message}${error.message.includes(llmSetupHint) ? '' : `\n${llmSetupHint}`}`;
}

/** A stand-in model for a chat started without one: every question is answered with the setup message. */
export function unconfiguredProvider(error: ProviderConfigError): LLMProvider {
  const refuse = () => Promise.reject(error);
  return { name: 'none', complete: refuse, completeWithTools: refuse };
}

export function failure(error: unknown): string {
  if (error instanceof ProviderConfigError) return setupMessage(error);
  if (error instanceof LLMProviderError) return `Error: ${error.userMessage} (${error.message})`;
  return `Error: ${error instanceof Error ? error.message : String(error)}`;
}
