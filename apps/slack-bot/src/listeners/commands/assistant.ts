import {
  ConnectRefused,
  type ConversationSource,
  type People,
  type PersonRef,
  type WorkspaceServer,
} from '@ai-assistant/assistant';
import {
  type ChatService,
  describeReason,
  firstSentence,
  type Logger,
  type McpView,
  type PromptEntry,
  parsePromptArguments,
} from '@ai-assistant/host-core';
import type { AuditTrail, Store } from '@ai-assistant/store';
import type { AllMiddlewareArgs, App, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { escapeSlackText } from '../../format/slack-text.js';
import { isWorkspaceAdmin } from '../../slack/admins.js';
import type { Question } from '../../slack/answer.js';
import { auditFilter, auditLine } from '../../slack/audit.js';
import type { ConnectStarts } from '../../slack/connect-start.js';
import type { TurnPlace } from '../../slack/conversation-source.js';
import { connectLinkMessage } from '../../slack/oauth-connect.js';
import { connectModal, connectProblemText, personOf } from '../../slack/people.js';
import { serverStateText } from '../../slack/server-state.js';
import { botOf } from '../../slack/thread-history.js';
import { scheduleCommand } from './schedule.js';

/** What the /assistant command needs. */
export interface AssistantCommandDependencies {
  /** The one door to MCP: every subcommand reads the asker's workspace view through it. */
  people: People;
  accept: (question: Question) => boolean;
  logger: Logger;
  /** The audit trail (`/assistant audit`), when the bot has its store. */
  audit?: Pick<AuditTrail, 'recent'>;
  /** The asker's recorded conversations (the host's summary prompt), where the command was run. */
  conversations?: (person: PersonRef, place: TurnPlace) => ConversationSource;
  /** Where Connect links lead (the bot's start page). */
  starts: ConnectStarts;
  /** What a question would be offered of a person's tools, and why (the chat's own choice). */
  toolsFor?: ChatService['toolsFor'];
  /** People's schedules (`/assistant schedule`). */
  schedules?: Pick<Store, 'schedules'>;
  now?: () => Date;
}

export const commandUsage = [
  '`/assistant servers` — the MCP servers: state, tools, and which tools need your approval',
  '`/assistant tools <words>` — the tools a question with these words is offered, and why',
  '`/assistant connect <server>` / `/assistant disconnect <server>` — your own token for a server that needs one',
  '`/assistant servers enable <server>` / `disable <server>` — workspace admins choose the servers',
  '`/assistant audit [server|@person]` — workspace admins: the latest tool calls, connects and changes',
  '`/assistant schedule <when> | <question>` — ask it on a schedule in this channel, as you (`/assistant schedule help` for more)',
  '`/assistant prompts` — list the prompts the MCP servers offer',
  '`/assistant prompt <name> key=value …` — fill a prompt and answer it in a new thread (use `server/name` when two servers share a name)',
].join('\n');

const policyWords: Record<string, string> = {
  auto: 'runs every tool without asking',
  writes: 'asks before any tool that is not read-only',
  always: 'asks before every tool',
};

/** One line per server: state, tool count, approval policy, and (per-person servers) whether you connected. */
function describeServer(server: WorkspaceServer): string {
  const policy = Array.isArray(server.approval)
    ? `asks before ${server.approval.map((tool) => `\`${tool}\``).join(', ')}`
    : (policyWords[server.approval] ?? server.approval);
  const state = serverStateText(server);
  const since = server.connectedSince ? ` since ${server.connectedSince.toISOString().slice(0, 10)}` : '';
  const how = server.oauth ? ' with OAuth' : '';
  const yours = server.personalCredential
    ? server.connected
      ? `; you: connected${how} ✓${since}`
      : `; you: not connected (\`/assistant connect ${server.name}\`${server.oauth ? ' to sign in' : ''})`
    : '';
  return `• \`${server.name}\` (${server.transport}) — ${state}; approval: ${policy}${yours}`;
}

/** Handles `/assistant …`: lists prompts, or fills one and answers it in a new thread of the channel. */
export function onAssistantCommand(dependencies: AssistantCommandDependencies) {
  return async ({
    command,
    ack,
    respond,
    client,
    context,
  }: SlackCommandMiddlewareArgs & AllMiddlewareArgs) => {
    await ack();
    const say = (text: string) => respond({ response_type: 'ephemeral', text });
    const [subcommand = '', wanted = '', ...rest] = command.text.trim().split(/\s+/);
    const person = personOf({ team: command.team_id, user: command.user_id });
    const workspace = person.workspace;
    const people = dependencies.people;
    // Prompts are the asker's: their workspace's enabled servers only, filled with their credentials.
    const conversations = dependencies.conversations?.(person, { channel: command.channel_id });
    const view =
      subcommand === 'prompts' || subcommand === 'prompt' || subcommand === 'tools'
        ? await people.viewFor(person, conversations ? { conversations } : {})
        : undefined;
    const prompts = view?.listPrompts() ?? [];
    if (subcommand === 'servers' && (wanted === 'enable' || wanted === 'disable')) {
      const name = rest[0] ?? '';
      if (!(await people.servers(person)).some((server) => server.name === name))
        return void (await say(connectProblemText(name, 'unknown server')));
      if (!(await isWorkspaceAdmin(client, command.user_id)))
        return void (await say('Sorry, only workspace admins and owners can enable or disable servers.'));
      await people.setEnabled(workspace, name, wanted === 'enable', command.user_id);
      return void (await say(`\`${name}\` is now ${wanted}d for this workspace.`));
    }
    if (subcommand === 'schedule' || subcommand === 'schedules') {
      if (!dependencies.schedules) return void (await say('Schedules need the bot’s store.'));
      const words = command.text.trim().slice(subcommand.length).trim();
      return void (await say(
        await scheduleCommand(
          words,
          person,
          command.channel_id,
          client,
          dependencies.schedules,
          dependencies.now?.() ?? new Date(),
        ),
      ));
    }
    if (subcommand === 'audit') {
      if (!dependencies.audit) return void (await say('The audit trail needs the bot’s store.'));
      if (!(await isWorkspaceAdmin(client, command.user_id)))
        return void (await say('Sorry, only workspace admins and owners can read the audit trail.'));
      const rows = await dependencies.audit.recent(workspace, { ...auditFilter(wanted), limit: 20 });
      if (rows.length === 0) return void (await say('Nothing in the audit trail yet.'));
      return void (await say(rows.map(auditLine).join('\n')));
    }
    if (subcommand === 'tools') {
      const words = command.text.trim().slice('tools'.length).trim();
      if (!view) return void (await say('MCP is off: no tools.'));
      if (!words || !dependencies.toolsFor)
        return void (await say(
          'Usage: `/assistant tools <words>` — e.g. `/assistant tools 先週マージされたPR`',
        ));
      return void (await say(await explainChoice(view, words, dependencies.toolsFor)));
    }
    if (subcommand === 'servers') {
      const servers = (await people.servers(person)).filter((server) => server.enabled);
      if (servers.length === 0) return void (await say('No MCP server is enabled for this workspace.'));
      return void (await say(servers.map(describeServer).join('\n')));
    }
    if (subcommand === 'connect' || subcommand === 'disconnect') {
      const server = await people.personalServerIn(workspace, wanted);
      if (server instanceof ConnectRefused)
        return void (await say(connectProblemText(wanted, server.problem)));
      if (subcommand === 'disconnect') {
        const deleted = await people.disconnect(person, server.name);
        return void (await say(
          deleted
            ? server.oauth
              ? `Disconnected \`${server.name}\`: your tokens are revoked and deleted.`
              : `Disconnected \`${server.name}\`: your token is deleted.`
            : `You had not connected \`${server.name}\`.`,
        ));
      }
      if (server.oauth) {
        const message = await connectLinkMessage(
          people,
          dependencies.starts,
          person,
          server.name,
          dependencies.logger,
        );
        return void (await respond({
          response_type: 'ephemeral',
          ...('problem' in message ? { text: message.problem } : message),
        } as Parameters<typeof respond>[0]));
      }
      await client.views.open({ trigger_id: command.trigger_id, view: connectModal(server) });
      return;
    }
    if (subcommand === 'prompts') {
      if (prompts.length === 0) return void (await say('No MCP server offers prompts (or MCP is off).'));
      const lines = prompts.map((prompt) => {
        const args = prompt.arguments
          .map((argument) => `${argument.name}=${argument.required ? '…' : '[…]'}`)
          .join(' ');
        return `• \`${prompt.server}/${prompt.name}\` ${args}${prompt.description ? ` — ${prompt.description}` : ''}`;
      });
      return void (await say(lines.join('\n')));
    }
    if (subcommand !== 'prompt' || !wanted || !view) return void (await say(commandUsage));
    const [server, name] = wanted.includes('/')
      ? (wanted.split('/', 2) as [string, string])
      : [undefined, wanted];
    const candidates = prompts.filter(
      (prompt) => prompt.name === name && (!server || prompt.server === server),
    );
    if (candidates.length !== 1) {
      return void (await say(
        candidates.length === 0
          ? `No prompt named \`${wanted}\`. Try \`/assistant prompts\`.`
          : `Several servers offer \`${name}\`: use \`server/${name}\`.`,
      ));
    }
    const chosen = candidates[0] as (typeof candidates)[number];
    try {
      const args = parsePromptArguments(rest.join(' '));
      const missing = chosen.arguments.filter((argument) => argument.required && !args[argument.name]);
      if (missing.length > 0)
        return void (await say(await missingArgumentsHint(view, chosen, missing, args)));
      const filled = await view.getPrompt(chosen.server, chosen.name, args);
      const question = filled.messages.filter((message) => message.role === 'user').at(-1)?.content;
      if (!question) return void (await say(`Prompt \`${chosen.name}\` has no question to answer.`));
      const posted = await client.chat.postMessage({
        channel: command.channel_id,
        text: `🧩 <@${command.user_id}> ran the prompt \`${chosen.server}/${chosen.name}\``,
      });
      const ts = posted.ts as string;
      dependencies.accept({
        channel: command.channel_id,
        threadTs: ts,
        messageTs: ts,
        text: question,
        // Auto-context looks up what the person gave the prompt, not the prompt's whole text.
        autoContextQuery: Object.values(args).join(' '),
        user: command.user_id,
        team: command.team_id,
        client,
        ...botOf(context),
      });
    } catch (error) {
      dependencies.logger.warn({ prompt: chosen.name, error }, 'prompt failed');
      await say(`The prompt \`${chosen.name}\` could not be filled: ${(error as Error).message}`);
    }
  };
}

/**
 * What a prompt still needs, each missing argument with the values its server suggests
 * (`completion/complete`, with the arguments already given as context), ready to copy.
 */
async function missingArgumentsHint(
  view: McpView,
  prompt: PromptEntry,
  missing: PromptEntry['arguments'],
  given: Record<string, string>,
): Promise<string> {
  const lines = await Promise.all(
    missing.map(async (argument) => {
      const values = await view
        .completePromptArgument(prompt.server, prompt.name, { name: argument.name, value: '' }, given)
        .catch(() => []);
      const suggested = values
        .slice(0, 10)
        .map((value) => `\`${argument.name}=${escapeSlackText(/\s/.test(value) ? `"${value}"` : value)}\``)
        .join(' ');
      return `• \`${escapeSlackText(argument.name)}\`${argument.description ? ` — ${escapeSlackText(argument.description)}` : ''}${suggested ? `\n   the server suggests: ${suggested}` : ''}`;
    }),
  );
  return `\`${escapeSlackText(`${prompt.server}/${prompt.name}`)}\` needs:\n${lines.join('\n')}`;
}

/** Lines shown of an offer: a request's tools fit, with room for the reasons. */
const shownTools = 30;

/** `/assistant tools <words>`: what a question of these words is offered, each tool with why. */
async function explainChoice(
  view: McpView,
  words: string,
  toolsFor: ChatService['toolsFor'],
): Promise<string> {
  const { catalog, offer } = await toolsFor(view, words);
  if (catalog === 0) return 'No tools are available to you.';
  const head = offer.narrowed
    ? `“${escapeSlackText(words)}” is offered ${offer.tools.length} of your ${catalog} tools (the model can search for the rest):`
    : `All your ${catalog} tools are offered to every question (the catalog is small).`;
  const lines = offer.tools.slice(0, shownTools).map((tool) => {
    const why = offer.narrowed ? describeReason(offer.reasons.get(tool.name)) : '';
    return `• \`${tool.name}\` — ${escapeSlackText(firstSentence(tool.description))}${why ? ` _(${escapeSlackText(why)})_` : ''}`;
  });
  const more = offer.tools.length > shownTools ? [`…and ${offer.tools.length - shownTools} more`] : [];
  return [head, ...lines, ...more].join('\n');
}

/** Registers `/assistant`. */
export function register(app: App, dependencies: AssistantCommandDependencies): void {
  app.command('/assistant', onAssistantCommand(dependencies));
}
