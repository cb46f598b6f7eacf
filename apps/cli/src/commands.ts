import { readFileSync } from 'node:fs';
import type { People } from '@ai-assistant/assistant';
import {
  type ApprovalDecision,
  type ApprovalRequest,
  type ChatService,
  checkArguments,
  describeReason,
  firstSentence,
  type McpView,
  type Message,
  parsePromptArguments,
  type ToolAuditEntry,
  type ToolHost,
} from '@ai-assistant/host-core';
import { localPerson } from './credentials.js';
import { argumentNames, expectedArguments } from './tool-arguments.js';

/** What a command may need of the session: the person's yes or no, and the audit trail. */
export interface CommandContext {
  approve?: (request: ApprovalRequest) => Promise<ApprovalDecision>;
  audit?: (entry: ToolAuditEntry) => Promise<void>;
  /** What a question would be offered of the person's tools (the chat's own choice). */
  toolsFor?: ChatService['toolsFor'];
}

/** What a slash command did; `ask` sends a prompt's messages as the next turn. */
export type CommandOutcome =
  | {
      output: string;
      history?: Message[];
      exit?: boolean;
      ask?: { history: Message[]; userMessage: string; autoContextQuery: string };
      /** `/connect` or `/disconnect`: the chat loop asks for the token (hidden) or opens the sign-in. */
      credential?: { server: string | undefined; disconnect: boolean };
    }
  | undefined;

/** "1 tool", "3 tools". */
export const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** One slash command of the chat: its names (the first is the one dispatched on), how to use it, what it does. */
export interface ChatCommand {
  names: string[];
  usage: string;
  summary: string;
}

/**
 * Every slash command the chat accepts. The table is data (chat-commands.json) so that `pnpm start --help`
 * lists it without a build; the chat dispatches on it and its help is made from it.
 */
export const chatCommands: ChatCommand[] = JSON.parse(
  readFileSync(new URL('../chat-commands.json', import.meta.url), 'utf8'),
);

/** The table as help lines: the usage, then what the command does. */
export const helpText = (() => {
  const width = Math.max(...chatCommands.map((command) => command.usage.length));
  return `Commands:\n${chatCommands.map((command) => `  ${command.usage.padEnd(width)}  ${command.summary}`).join('\n')}`;
})();

interface CommandInput {
  line: string;
  command: string;
  rest: string[];
  people: People;
  /** The local person's view (undefined when MCP is off). */
  view: () => Promise<McpView | undefined>;
  context: CommandContext;
}

const handlers: Record<string, (input: CommandInput) => Promise<CommandOutcome> | CommandOutcome> = {
  '/call': async ({ line, rest, view, context }) => {
    const mcp = await view();
    if (!mcp) return { output: 'MCP is off: no tools.' };
    const [name] = rest;
    if (!name) return { output: 'Usage: /call <tool> {"argument": "value"}   (see /tools)' };
    const text = line.trim();
    return { output: await callDirectly(mcp, name, text.slice(text.indexOf(name) + name.length), context) };
  },
  '/resources': async ({ view }) => {
    const mcp = await view();
    if (!mcp) return { output: 'MCP is off: no resources.' };
    const resources = mcp
      .listResources()
      .map((resource) => `  ${resource.server}  ${resource.uri}  ${resource.name}`);
    const templates = mcp
      .listResourceTemplates()
      .map((template) => `  ${template.server}  ${template.uriTemplate}  (template) ${template.name}`);
    const lines = [...resources, ...templates];
    return { output: lines.length > 0 ? lines.join('\n') : 'No server offers resources.' };
  },
  '/read': async ({ rest, view }) => {
    const [server, uri] = rest;
    const mcp = server && uri ? await view() : undefined;
    if (!mcp || !server || !uri) return { output: 'Usage: /read <server> <uri>   (see /resources)' };
    try {
      return { output: (await mcp.readResource(server, uri)).text };
    } catch (error) {
      return { output: `Cannot read ${uri}: ${(error as Error).message}` };
    }
  },
  '/prompts': async ({ view }) => {
    const mcp = await view();
    if (!mcp) return { output: 'MCP is off: no prompts.' };
    const lines = mcp.listPrompts().map((prompt) => {
      const args = prompt.arguments
        .map((argument) => `${argument.name}=${argument.required ? '…' : '[…]'}`)
        .join(' ');
      return `  ${prompt.server} ${prompt.name} ${args}${prompt.description ? `  — ${prompt.description}` : ''}`;
    });
    return { output: lines.length > 0 ? lines.join('\n') : 'No server offers prompts.' };
  },
  '/prompt': async ({ rest, view }) => {
    const [server, name] = rest;
    const mcp = server && name ? await view() : undefined;
    if (!mcp || !server || !name)
      return { output: 'Usage: /prompt <server> <name> key=value…   (see /prompts)' };
    try {
      const args = parsePromptArguments(rest.slice(2).join(' '));
      const filled = await mcp.getPrompt(server, name, args);
      const messages: Message[] = filled.messages.map((message) => ({
        role: message.role,
        content: message.content,
      }));
      const last = messages.findLastIndex((message) => message.role === 'user');
      if (last === -1) return { output: `Prompt ${name} has no user message to send.` };
      return {
        output: `(prompt ${server}/${name} sent)`,
        ask: {
          history: messages.slice(0, last),
          userMessage: (messages[last] as Message).content,
          // Auto-context looks up what the person gave the prompt, not the prompt's whole text.
          autoContextQuery: Object.values(args).join(' '),
        },
      };
    } catch (error) {
      return { output: `Cannot use prompt ${name}: ${(error as Error).message}` };
    }
  },
  '/connect': ({ rest }) => ({ output: '', credential: { server: rest[0], disconnect: false } }),
  '/disconnect': ({ rest }) => ({ output: '', credential: { server: rest[0], disconnect: true } }),
  '/help': () => ({ output: helpText }),
  '/exit': () => ({ output: '', exit: true }),
  '/reset': () => ({ output: 'The conversation was reset.', history: [] }),
  '/servers': async ({ people }) => {
    if (!people.mcpEnabled)
      return { output: 'MCP is off (set MCP_ENABLED=true to use the servers in config/mcp_servers.json).' };
    const lines = (await people.servers(localPerson)).map((server) => {
      const detail =
        server.state === 'connected'
          ? `${plural(server.toolCount, 'tool')}${server.protocolVersion ? `, MCP ${server.protocolVersion}` : ''}`
          : (server.reason ?? '');
      const enabled = server.enabled ? '' : ' — off in this workspace';
      // A disabled server cannot be connected to: no /connect is offered for it.
      const yours =
        server.personalCredential && server.state !== 'disabled'
          ? server.connected
            ? ' — you: connected'
            : ` — you: not connected (/connect ${server.name})`
          : '';
      return `  ${server.name} (${server.transport}): ${server.state}${detail ? ` — ${detail}` : ''}${enabled}${yours}`;
    });
    return {
      output: lines.length > 0 ? `MCP servers:\n${lines.join('\n')}` : 'No MCP servers are configured.',
    };
  },
  '/tools': async ({ line, command, view, context }) => {
    const mcp = await view();
    if (!mcp) return { output: 'MCP is off: no tools.' };
    const words = line.trim().slice(command.length).trim();
    if (words && context.toolsFor) return { output: await explainChoice(mcp, words, context.toolsFor) };
    const byServer = new Map<string, string[]>();
    for (const tool of mcp.listTools()) {
      const server = mcp.resolveTool(tool.name)?.server ?? '?';
      byServer.set(server, [
        ...(byServer.get(server) ?? []),
        `    ${tool.name}${argumentNames(tool)} — ${tool.description.split('\n')[0]}`,
      ]);
    }
    if (byServer.size === 0) return { output: 'No tools are available.' };
    return {
      output: [
        requiredMark,
        ...[...byServer.entries()].map(([server, tools]) => `  ${server}:\n${tools.join('\n')}`),
      ].join('\n'),
    };
  },
};

// The table and the handlers are one list: a command without the other is a mistake caught at start.
for (const command of chatCommands)
  if (!handlers[command.names[0] ?? ''])
    throw new Error(`chat-commands.json: ${command.names[0]} has no handler in commands.ts`);
for (const name of Object.keys(handlers))
  if (!chatCommands.some((command) => command.names[0] === name))
    throw new Error(`commands.ts: ${name} is missing from chat-commands.json`);

const requiredMark = '(* marks a required argument)';

/** The table's entry for a typed command (any of its names, in any case). */
export function chatCommandNamed(word: string): ChatCommand | undefined {
  const name = word.toLowerCase();
  return chatCommands.find((command) => command.names.includes(name));
}

/** Runs a slash command; undefined when the line is not one. */
export async function runCommand(
  line: string,
  people: People,
  context: CommandContext = {},
): Promise<CommandOutcome> {
  const [command = '', ...rest] = line.trim().split(/\s+/);
  const entry = chatCommandNamed(command);
  if (!entry)
    return command.startsWith('/') ? { output: `Unknown command ${command}. ${helpText}` } : undefined;
  // Everything MCP is the local person's view: their servers, their own credentials.
  let view: Promise<McpView | undefined> | undefined;
  const handler = handlers[entry.names[0] ?? ''] as (typeof handlers)[string];
  return handler({
    line,
    command,
    rest,
    people,
    view: () => {
      view ??= people.viewFor(localPerson);
      return view;
    },
    context,
  });
}

/** `/tools <words>`: what a question of these words is offered, each tool with why. */
async function explainChoice(
  view: ToolHost,
  words: string,
  toolsFor: ChatService['toolsFor'],
): Promise<string> {
  const { catalog, offer } = await toolsFor(view, words);
  if (catalog === 0) return 'No tools are available.';
  const lines = offer.tools.map((tool) => {
    // The small catalog's one reason is said once, in the head line.
    const why = offer.narrowed ? describeReason(offer.reasons.get(tool.name)) : '';
    return `  ${tool.name}${argumentNames(tool)} — ${firstSentence(tool.description)}${why ? `\n      (${why})` : ''}`;
  });
  const head = offer.narrowed
    ? `"${words}" is offered ${plural(offer.tools.length, 'tool')} of ${catalog} (the model can search for the rest):`
    : `All ${plural(catalog, 'tool')} are offered to every question (the catalog is small):`;
  return [head, requiredMark, ...lines].join('\n');
}

/** A tool by its model-facing name, `server/tool`, or its own name when one server alone has it. */
function findTool(view: ToolHost, name: string) {
  const tools = view.listTools();
  const exact = tools.find((tool) => tool.name === name);
  if (exact) return exact;
  const [server, tool] = name.includes('/') ? name.split('/', 2) : [undefined, name];
  const matches = tools.filter((candidate) => {
    const resolved = view.resolveTool(candidate.name);
    return resolved?.tool === tool && (server === undefined || resolved.server === server);
  });
  return matches.length === 1 ? matches[0] : undefined;
}

/** `/call`: one tool run for the person, as the model's calls run (approval, audit), its result shown. */
async function callDirectly(
  view: ToolHost,
  name: string,
  json: string,
  context: CommandContext,
): Promise<string> {
  const tool = findTool(view, name);
  if (!tool) return `No tool ${name} (or more than one server has it: write server/tool). See /tools.`;
  let args: unknown;
  try {
    args = json.trim() ? JSON.parse(json) : {};
  } catch (error) {
    return `Not run: the arguments are not JSON (${(error as Error).message}).\n${expectedArguments(tool)}`;
  }
  if (!args || typeof args !== 'object' || Array.isArray(args))
    return `Not run: the arguments must be a JSON object.\n${expectedArguments(tool)}`;
  // The common mistakes are named here, with what the tool takes; the server checks the rest.
  const problem = checkArguments(args as Record<string, unknown>, tool.inputSchema);
  if (problem) return `Not run: ${problem}.\n${expectedArguments(tool)}`;
  const target = view.resolveTool(tool.name);
  const shown = view.redact(args as Record<string, unknown>);
  const at = new Date();
  /** The audit row of this call, as the model's calls are recorded. */
  const audit = (
    outcome: ToolAuditEntry['outcome'],
    durationMs: number,
    approval?: ToolAuditEntry['approval'],
  ) =>
    context
      .audit?.({
        kind: 'tool_call',
        at,
        workspace: localPerson.workspace,
        person: localPerson.user,
        ...(target ? { server: target.server } : {}),
        tool: target?.tool ?? tool.name,
        arguments: JSON.stringify(shown).slice(0, 2000),
        ...(approval ? { approval } : {}),
        outcome,
        durationMs,
      })
      .catch(() => undefined);
  let approval: ToolAuditEntry['approval'];
  if (tool.needsApproval) {
    const decision = context.approve
      ? await context.approve({
          name: tool.name,
          server: target?.server ?? '',
          tool: target?.tool ?? tool.name,
          arguments: shown,
          hints: tool.hints ?? { readOnly: false, destructive: true, idempotent: false, openWorld: true },
        })
      : { outcome: 'expired' as const };
    if (decision.outcome !== 'approved') {
      // Declined: audited as denied, with no duration (nothing ran; the wait was the person's).
      await audit('denied', 0);
      const reason = decision.outcome === 'denied' && decision.reason ? `, saying: "${decision.reason}"` : '';
      return `Not run: ${tool.name} changes things and was not approved${reason}.`;
    }
    approval = { by: localPerson.user, at: new Date() };
  }
  const started = performance.now();
  let outcome: ToolAuditEntry['outcome'] = 'ok';
  let text: string;
  try {
    const result = await view.callTool(tool.name, args as Record<string, unknown>);
    outcome = result.isError ? 'error' : 'ok';
    // A server that refuses the arguments (MCP's -32602) gets the same help as our own check.
    const refused = result.isError && /-32602|invalid arguments/i.test(result.text);
    text = result.isError
      ? `Error: ${result.text}${refused ? `\n${expectedArguments(tool)}` : ''}`
      : result.text;
  } catch (error) {
    outcome = 'error';
    const message = (error as Error).message;
    text = `Error: ${message}${/-32602|invalid arguments/i.test(message) ? `\n${expectedArguments(tool)}` : ''}`;
  }
  await audit(outcome, performance.now() - started, approval);
  return text;
}

/**
 * Tab completion of a line: commands; for `/prompt`, the servers, their prompts, argument names and
 * (asked of the server, `completion/complete`) argument values. Returns the candidates and the word
 * they complete, as readline's completer does.
 */
export async function completeLine(line: string, people: People): Promise<[string[], string]> {
  const words = line.split(/\s+/);
  const last = words.at(-1) ?? '';
  if (words.length === 1) {
    const commands = chatCommands.flatMap((command) => command.names);
    return [commands.filter((command) => command.startsWith(last)), last];
  }
  if (words[0] !== '/prompt') return [[], last];
  const view = await people.viewFor(localPerson);
  const prompts = view?.listPrompts() ?? [];
  if (words.length === 2)
    return [
      [...new Set(prompts.map((prompt) => prompt.server))].filter((server) => server.startsWith(last)),
      last,
    ];
  const [, server, name] = words;
  if (words.length === 3)
    return [
      prompts
        .filter((prompt) => prompt.server === server && prompt.name.startsWith(last))
        .map((prompt) => prompt.name),
      last,
    ];
  const prompt = prompts.find((entry) => entry.server === server && entry.name === name);
  if (!prompt || !view) return [[], last];
  const equals = last.indexOf('=');
  if (equals === -1)
    return [
      prompt.arguments.map((argument) => `${argument.name}=`).filter((argument) => argument.startsWith(last)),
      last,
    ];
  const argument = last.slice(0, equals);
  const given = parsePromptArguments(words.slice(3, -1).join(' '));
  const values = await view
    .completePromptArgument(
      prompt.server,
      prompt.name,
      { name: argument, value: last.slice(equals + 1) },
      given,
    )
    .catch(() => []);
  return [values.map((value) => `${argument}=${/\s/.test(value) ? `"${value}"` : value}`), last];
}
