import type { App } from '@slack/bolt';
import { personOf } from '../slack/people.js';
import { register as registerAgentMessages } from './assistant/agent-messages.js';
import { register as registerAssistant } from './assistant/assistant.js';
import {
  type AssistantCommandDependencies,
  register as registerAssistantCommand,
} from './commands/assistant.js';
import { register as registerAppMention } from './events/app-mention.js';
import type { ListenerDependencies } from './events/enqueue.js';
import { register as registerMessage } from './events/message.js';

export type { ListenerDependencies } from './events/enqueue.js';

/** Registers every listener of the app, as Bolt's samples do: events, then commands. */
export function registerListeners(
  app: App,
  dependencies: { events: ListenerDependencies; commands: AssistantCommandDependencies },
): void {
  const viewFor = (person: { team?: string; user?: string }) =>
    dependencies.commands.people.viewFor(personOf(person));
  // The assistant pane first (apps still on `assistant_view`): its DM-thread messages are its own, the
  // rest goes on to the listeners below.
  registerAssistant(app, { events: dependencies.events, viewFor, logger: dependencies.commands.logger });
  // The agent messaging experience (`agent_view`): the Messages tab's greeting and suggested prompts.
  registerAgentMessages(app, { viewFor, logger: dependencies.commands.logger });
  registerAppMention(app, dependencies.events);
  registerMessage(app, dependencies.events);
  registerAssistantCommand(app, dependencies.commands);
}
