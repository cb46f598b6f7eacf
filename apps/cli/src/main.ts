#!/usr/bin/env node
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import {
  type ApprovalDecision,
  type ApprovalRequest,
  type ChatEvent,
  ChatService,
  credentialProblem,
  environmentSecrets,
  type LLMProvider,
  loadDotEnv,
  type McpHost,
  type Message,
  Redactor,
  startMcpFromEnvironment,
  wholeNumber,
} from '@ai-assistant/host-core';
import {
  createProviderFromEnv,
  LLMProviderError,
  llmSetupHint,
  ProviderConfigError,
} from '@ai-assistant/llm-providers';
import { type DestinationStream, pino } from 'pino';
import pretty from 'pino-pretty';
import { approvalAnswer, approvalSummary } from './approval.js';
import { checkConfig } from './check-config.js';
import { helpText, plural, runCommand } from './commands.js';
import { LocalCredentials } from './credentials.js';

const write = (text: string) => process.stdout.write(text);
const note = (text: string) => process.stderr.write(text);

/** Readable log lines on a terminal (or LOG_FORMAT=pretty), JSON lines otherwise (LOG_FORMAT=json). */
function logDestination(env: NodeJS.ProcessEnv, fd: 2): DestinationStream {
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

/** `server › tool`, so the same tool name on two servers can be told apart. */
function toolLabel(event: { server?: string; tool?: string; name: string }): string {
  return event.server && event.tool ? `${event.server} › ${event.tool}` : event.name;
}

function describeEvent(event: ChatEvent): string | undefined {
  if (event.type === 'tool_start')
    return `  ${event.autoContext ? '🔎' : '🔧'} ${toolLabel(event)}(${JSON.stringify(event.arguments)}) …\n`;
  if (event.type === 'tool_end')
    return `  ${event.ok ? '✓' : '✗'} ${toolLabel(event)} ${Math.round(event.durationMs)} ms\n`;
  return undefined;
}

/** The message naming the variables to set, once per missing model. */
function setupMessage(error: ProviderConfigError): string {
  return `${error.message}${error.message.includes(llmSetupHint) ? '' : `\n${llmSetupHint}`}`;
}

/** A stand-in model for a chat started without one: every question is answered with the setup message. */
function unconfiguredProvider(error: ProviderConfigError): LLMProvider {
  const refuse = () => Promise.reject(error);
  return { name: 'none', complete: refuse, completeWithTools: refuse };
}

function failure(error: unknown): string {
  if (error instanceof ProviderConfigError) return setupMessage(error);
  if (error instanceof LLMProviderError) return `Error: ${error.userMessage} (${error.message})`;
  return `Error: ${error instanceof Error ? error.message : String(error)}`;
}

/** The terminal chat: interactive, or one answer with --once. Returns the exit code. */
export async function main(argv = process.argv.slice(2), env = process.env): Promise<number> {
  let options: { values: { once?: string; yes?: boolean; help?: boolean; 'check-config'?: boolean } };
  try {
    options = parseArgs({
      // `--once --yes "q"` reads as meant: a flag right after --once is not taken for its question.
      args: [
        ...argv.filter((arg) => arg === '--yes' || arg === '-y'),
        ...argv.filter((arg) => arg !== '--yes' && arg !== '-y'),
      ],
      options: {
        once: { type: 'string' },
        yes: { type: 'boolean', short: 'y' },
        help: { type: 'boolean', short: 'h' },
        'check-config': { type: 'boolean' },
      },
      allowPositionals: false,
    });
  } catch (error) {
    note(`${(error as Error).message}\nUsage: pnpm chat [--once "question" [--yes]]\n`);
    return 2;
  }
  if (options.values.help) {
    write(`Usage: pnpm chat [--once "question" [--yes]]   pnpm check-config\n\n${helpText}\n`);
    return 0;
  }
  loadDotEnv();
  if (options.values['check-config']) return checkConfig(env, write);
  const logger = pino({ level: env.LOG_LEVEL || 'warn' }, logDestination(env, 2));

  // Numbers are checked as the Slack app checks them: a malformed one is named, and nothing starts.
  let maxIterations: number | undefined;
  let toolTimeoutMs: number | undefined;
  let maxToolCallsPerRound: number | undefined;
  try {
    maxIterations = wholeNumber(env, 'TOOL_LOOP_MAX_ITERATIONS', undefined);
    toolTimeoutMs = wholeNumber(env, 'TOOL_CALL_TIMEOUT_MS', undefined);
    maxToolCallsPerRound = wholeNumber(env, 'MAX_TOOL_CALLS_PER_ROUND', undefined);
  } catch (error) {
    note(`${(error as Error).message}\n`);
    return 1;
  }
  let provider: LLMProvider;
  // Without a model the chat still opens, so servers, tools, resources and prompts can be looked at.
  let setupError: ProviderConfigError | undefined;
  try {
    const redactor = new Redactor(environmentSecrets(env));
    provider = createProviderFromEnv(env, { logger, redact: (text) => redactor.redact(text) });
  } catch (error) {
    if (!(error instanceof ProviderConfigError)) throw error;
    setupError = error;
    provider = unconfiguredProvider(error);
  }
  if (setupError && options.values.once !== undefined) {
    note(`${setupMessage(setupError)}\n`);
    return 1;
  }
  let mcp: McpHost | undefined;
  let credentials: LocalCredentials | undefined;
  try {
    mcp = await startMcpFromEnvironment({ env, logger });
    credentials = new LocalCredentials(mcp, env, logger);
    const local = credentials;
    const chat = new ChatService({
      provider,
      tools: mcp,
      logger,
      maxIterations,
      toolTimeoutMs,
      maxToolCallsPerRound,
    });
    const onEvent = (event: ChatEvent) => {
      const line = describeEvent(event);
      if (line) note(line);
    };

    if (options.values.once !== undefined) {
      // No one to ask: tools that need approval are refused, unless --yes approves them all.
      const tools = await local.tools();
      const result = await chat.respond({
        ...(tools ? { tools } : {}),
        history: [],
        userMessage: options.values.once,
        onEvent,
        ...(options.values.yes ? { approve: async () => ({ outcome: 'approved' as const }) } : {}),
      });
      write(`${result.text}\n`);
      return 0;
    }

    const failed = mcp?.status().filter((server) => server.state === 'failed') ?? [];
    note(
      `ai-assistant chat — ${setupError ? 'no model configured (questions explain what to set)' : provider.name}, ${mcp ? plural(mcp.listTools().length, 'tool') : 'MCP off'}` +
        `${failed.length ? ` (${failed.length} server(s) failed: /servers)` : ''}. /help for commands, Ctrl-C to quit.\n`,
    );
    // What is typed is echoed, except while a token is being pasted after /connect.
    let hidden = false;
    const output = new Writable({
      write(chunk, _encoding, done) {
        if (!hidden) process.stdout.write(chunk);
        done();
      },
    });
    const terminal = createInterface({ input: process.stdin, output, terminal: process.stdin.isTTY });
    let history: Message[] = [];
    let current: AbortController | undefined;
    // Ctrl-C cancels a running answer, or quits at the prompt.
    const interrupt = () => {
      if (current) current.abort();
      else terminal.close();
    };
    terminal.on('SIGINT', interrupt);
    process.on('SIGINT', interrupt);
    // SIGTERM (pnpm dev restarting it, a supervisor): stop the answer and quit, closing the MCP servers.
    process.once('SIGTERM', () => {
      current?.abort();
      terminal.close();
    });
    terminal.setPrompt('> ');
    terminal.prompt();
    // The line iterator buffers what is typed (or piped) while an answer is being written; an approval
    // question reads its answer from it too.
    const lines = terminal[Symbol.asyncIterator]();
    const approve = async (request: ApprovalRequest): Promise<ApprovalDecision> => {
      note(approvalSummary(request));
      note('Run it? [y/N/reason] ');
      const answer = await lines.next();
      return approvalAnswer(answer.done ? '' : String(answer.value));
    };
    for (;;) {
      const next = await lines.next();
      if (next.done) break;
      const line = String(next.value);
      const [word, server] = line.trim().split(/\s+/);
      if (word === '/connect' || word === '/disconnect') {
        const problem = local.problem(server);
        if (problem) write(`${problem}\n`);
        else if (word === '/disconnect')
          write(
            (await local.disconnect(server as string))
              ? `Disconnected ${server}: your token is deleted.\n`
              : `You had not connected ${server}.\n`,
          );
        else {
          const help = mcp?.status().find((entry) => entry.name === server)?.credentialHelp;
          if (help) write(`${help}\n`);
          note(`Paste your token for ${server} (input hidden), then Enter: `);
          hidden = true;
          const secret = await lines.next();
          hidden = false;
          const value = secret.done ? '' : String(secret.value).trim();
          const problem = value ? credentialProblem(value) : undefined;
          if (!value) write('\nNothing entered; not connected.\n');
          else if (problem) write(`\nNot saved: ${problem}.\n`);
          else {
            await local.connect(server as string, value);
            write(`\n✓ connected: ${server} now uses your own token.\n`);
          }
        }
        terminal.prompt();
        continue;
      }
      const command = line.trim() ? await runCommand(line, mcp, () => local.connected()) : { output: '' };
      let turn: { history: Message[]; userMessage: string; autoContextQuery?: string } = {
        history,
        userMessage: line,
      };
      if (command) {
        if (command.output) write(`${command.output}\n`);
        if (command.history) history = command.history;
        if (command.exit) break;
        if (!command.ask) {
          terminal.prompt();
          continue;
        }
        turn = { ...command.ask, history: [...history, ...command.ask.history] };
      }
      current = new AbortController();
      try {
        let streamed = false;
        const tools = await local.tools();
        const result = await chat.respond({
          ...turn,
          ...(tools ? { tools } : {}),
          signal: current.signal,
          streamText: true,
          approve,
          onEvent: (event) => {
            if (event.type === 'text_delta') {
              streamed = true;
              write(event.text);
            } else onEvent(event);
          },
        });
        write(streamed ? '\n' : `${result.text}\n`);
        history = result.history;
      } catch (error) {
        note(`${failure(error)}\n`);
      } finally {
        current = undefined;
      }
      terminal.prompt();
    }
    terminal.close();
    return 0;
  } catch (error) {
    note(`${failure(error)}\n`);
    return 1;
  } finally {
    await mcp?.close();
    await credentials?.close();
  }
}

// Exit at once: idle keep-alive sockets to the model API would otherwise hold the process a few seconds.
process.exit(await main());
