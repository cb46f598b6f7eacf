import type { App } from '@slack/bolt';
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
  registerAppMention(app, dependencies.events);
  registerMessage(app, dependencies.events);
  registerAssistantCommand(app, dependencies.commands);
}
