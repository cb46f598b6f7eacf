import type { Logger, McpView } from '@ai-assistant/host-core';
import { type App, Assistant } from '@slack/bolt';
import { assistantCall } from '../../slack/progress.js';
import { enqueue, type ListenerDependencies, messageFields } from '../events/enqueue.js';

/** What the assistant pane needs. */
export interface AssistantDependencies {
  events: ListenerDependencies;
  /** The person's view of MCP: suggestions come from their workspace's enabled servers only. */
  viewFor: (person: { team?: string; user?: string }) => Promise<McpView | undefined>;
  logger: Logger;
}

/** One suggested prompt: the button's title and the message it sends. */
export interface Suggestion {
  title: string;
  message: string;
}

const maxSuggestions = 4;
const fallbackSuggestion: Suggestion = {
  title: '何ができるの？',
  message: 'どんなことを手伝ってくれますか？',
};

/**
 * Suggestions from the connected servers' MCP prompts (the weather server offers "東京の今日の天気は？"):
 * a prompt without required arguments is filled and its text is the message. Three or four at most.
 */
export async function suggestionsFrom(mcp: McpView | undefined, logger: Logger): Promise<Suggestion[]> {
  const prompts = (mcp?.listPrompts() ?? []).filter(
    (prompt) => !prompt.arguments.some((argument) => argument.required),
  );
  const suggestions: Suggestion[] = [];
  for (const prompt of prompts) {
    if (suggestions.length >= maxSuggestions) break;
    try {
      const filled = await mcp?.getPrompt(prompt.server, prompt.name);
      const message = filled?.messages.find((entry) => entry.role === 'user')?.content.trim();
      if (message) suggestions.push({ title: (prompt.title ?? message).slice(0, 75), message });
    } catch (error) {
      logger.debug(
        { server: prompt.server, prompt: prompt.name, error: String(error) },
        'prompt not usable as a suggestion',
      );
    }
  }
  return suggestions.length > 0 ? suggestions : [fallbackSuggestion];
}

/** The greeting, in the person's language where Slack tells it (`users.info` locale), else Japanese. */
export function greeting(locale: string | undefined): { text: string; title: string } {
  return locale?.toLowerCase().startsWith('en')
    ? {
        text: 'Hi! Ask me anything — I can use the tools of the connected servers.',
        title: 'Try one of these:',
      }
    : {
        text: 'こんにちは！何でも聞いてください。接続されているツールを使って答えます。',
        title: 'たとえば:',
      };
}

/** The person's locale as `users.info` reports it (undefined when Slack does not say). */
export async function localeOf(client: App['client'], user: string) {
  try {
    const info = await client.users.info({ user, include_locale: true });
    return info.user?.locale;
  } catch {
    return undefined;
  }
}

/**
 * Slack's assistant surface (Bolt's `Assistant`): a started thread gets a greeting and suggested
 * prompts; a person's message runs the same turn as a DM (dedupe, queue, approvals), with the pane's
 * status instead of a placeholder, and the thread is titled after its first question; a context change
 * (the channel the person views) is kept in the thread.
 */
export function createAssistant(dependencies: AssistantDependencies): Assistant {
  const { logger } = dependencies;
  const titled = new Set<string>();
  return new Assistant({
    threadStarted: async (args) => {
      const { event, say, setSuggestedPrompts, saveThreadContext, client } = args;
      const words = greeting(await localeOf(client, event.assistant_thread.user_id));
      await say(words.text).catch((error: unknown) =>
        logger.warn({ error: String(error) }, 'could not greet'),
      );
      const view = await dependencies.viewFor({
        user: event.assistant_thread.user_id,
        ...(args.context.teamId ? { team: args.context.teamId } : {}),
      });
      const prompts = await suggestionsFrom(view, logger);
      await assistantCall(logger, 'assistant.threads.setSuggestedPrompts', () =>
        setSuggestedPrompts({ prompts, title: words.title }),
      );
      await assistantCall(logger, 'thread context', () => saveThreadContext());
    },
    threadContextChanged: async ({ saveThreadContext }) => {
      await assistantCall(logger, 'thread context', () => saveThreadContext());
    },
    userMessage: async ({ event: raw, body, setTitle, client, context }) => {
      const event = messageFields(raw);
      if (event.subtype || event.bot_id || !event.user) return;
      if (!(await enqueue(dependencies.events, { body, client, context }, event, { surface: 'assistant' })))
        return;
      const thread = `${event.channel}:${event.thread_ts ?? event.ts}`;
      if (titled.has(thread)) return;
      titled.add(thread);
      if (titled.size > 10_000) titled.delete(titled.values().next().value as string);
      const title = (event.text ?? '').replace(/\s+/g, ' ').trim();
      await assistantCall(logger, 'assistant.threads.setTitle', () =>
        setTitle(title.length > 60 ? `${title.slice(0, 59)}…` : title),
      );
    },
  });
}

/** Registers the assistant surface. */
export function register(app: App, dependencies: AssistantDependencies): void {
  app.assistant(createAssistant(dependencies));
}
