import type { Logger, McpView } from '@ai-assistant/host-core';
import type { AllMiddlewareArgs, App, SlackEventMiddlewareArgs } from '@slack/bolt';
import { assistantCall } from '../../slack/progress.js';
import { greeting, localeOf, suggestionsFrom } from './assistant.js';

/** What the agent messages tab needs. */
export interface AgentMessagesDependencies {
  /** The person's view of MCP: suggestions come from their workspace's enabled servers only. */
  viewFor: (person: { team?: string; user?: string }) => Promise<McpView | undefined>;
  logger: Logger;
}

/**
 * The agent messaging experience (`agent_view`): a person opening the app's Messages tab
 * (`app_home_opened`, tab `messages`) gets suggested prompts (by `channel_id` alone: an agent app's
 * thread_ts would make Slack drop the call) and, the first time this process sees them, the greeting.
 * Their messages there are DMs: answered in the message's thread, with no `assistant_app_thread` root.
 */
export function onMessagesTabOpened(dependencies: AgentMessagesDependencies) {
  const { logger } = dependencies;
  const greeted = new Set<string>();
  return async ({
    event,
    client,
    context,
  }: SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs) => {
    if (event.tab !== 'messages') return;
    const team = context.teamId ?? undefined;
    const person = `${team ?? ''}:${event.user}`;
    const words = greeting(await localeOf(client, event.user));
    if (!greeted.has(person)) {
      greeted.add(person);
      if (greeted.size > 10_000) greeted.delete(greeted.values().next().value as string);
      await client.chat
        .postMessage({ channel: event.channel, text: words.text })
        .catch((error: unknown) => logger.warn({ error: String(error) }, 'could not greet'));
    }
    const view = await dependencies.viewFor({ user: event.user, ...(team ? { team } : {}) });
    const prompts = await suggestionsFrom(view, logger);
    await assistantCall(logger, 'assistant.threads.setSuggestedPrompts', () =>
      client.assistant.threads.setSuggestedPrompts({
        channel_id: event.channel,
        prompts,
        title: words.title,
      } as Parameters<typeof client.assistant.threads.setSuggestedPrompts>[0]),
    );
  };
}

/** Registers the Messages tab's greeting (the home tab is App Home's). */
export function register(app: App, dependencies: AgentMessagesDependencies): void {
  app.event('app_home_opened', onMessagesTabOpened(dependencies));
}
