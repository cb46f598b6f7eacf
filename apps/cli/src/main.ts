#!/usr/bin/env node
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { ConnectRefused, credentialProblem, type People, startPeople } from '@ai-assistant/assistant';
import {
  type ApprovalDecision,
  type ApprovalRequest,
  type ChatEvent,
  type ChatLoopSettings,
  ChatService,
  chatLoopFromEnvironment,
  defaultToolChoice,
  type ElicitationRequest,
  type EmbeddingRanker,
  embeddingRanker,
  environmentSecrets,
  type LLMProvider,
  loadDotEnv,
  type McpView,
  type Message,
  Redactor,
} from '@ai-assistant/host-core';
import { createProviderFromEnv, defaultModels, ProviderConfigError } from '@ai-assistant/llm-providers';
import { pino } from 'pino';
import { TerminalViews, viewLine } from './app-views.js';
import { approvalAnswer, approvalSummary } from './approval.js';
import { checkConfig } from './check-config.js';
import { completeLine, helpText, plural, runCommand } from './commands.js';
import { connectCommand, connectProblem, LocalStore, localPerson } from './credentials.js';
import { askAtPrompt, unattendedAnswer } from './elicitation.js';
import { connectWithBrowser, loopbackRedirect } from './oauth.js';
import {
  describeEvent,
  failure,
  logDestination,
  onceForEachServerState,
  setupMessage,
  unconfiguredProvider,
} from './output.js';

const write = (text: string) => process.stdout.write(text);
const note = (text: string) => process.stderr.write(text);

/**
 * Brings a large catalog's vectors into memory (a small catalog is offered whole and needs none); never
 * rejects, and an endpoint that does not answer is given up after the ranker's own limit.
 */
async function warmToolVectors(
  ranker: EmbeddingRanker | undefined,
  view: McpView | undefined,
  offerAllUpTo: number,
): Promise<void> {
  const tools = view?.listTools() ?? [];
  if (!ranker || !view || tools.length <= offerAllUpTo) return;
  await ranker.prepare(tools, (name) => view.resolveTool(name));
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
    write(
      `Usage: pnpm chat [--once "question" [--yes]]   pnpm check-config\n\n${helpText}\n\nEvery environment variable, with its default: pnpm start --help\n`,
    );
    return 0;
  }
  loadDotEnv();
  if (options.values['check-config']) return checkConfig(env, write);
  // One redactor for the process: the log lines, the providers' error texts and MCP's results.
  const redactor = new Redactor(environmentSecrets(env));
  const logger = redactor.wrap(
    pino({ level: env.LOG_LEVEL || 'warn', hooks: onceForEachServerState() }, logDestination(env, 2)),
  );

  // The loop's settings are read as the Slack app reads them: a malformed one is named, and nothing starts.
  let loop: ChatLoopSettings;
  try {
    loop = chatLoopFromEnvironment(env);
  } catch (error) {
    note(`${(error as Error).message}\n`);
    return 1;
  }
  let provider: LLMProvider;
  // Without a model the chat still opens, so servers, tools, resources and prompts can be looked at.
  let setupError: ProviderConfigError | undefined;
  try {
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
  const store = new LocalStore(env, logger);
  let people: People | undefined;
  let views: TerminalViews | undefined;
  // What host://settings shows: the model and the loop's limits (never a secret).
  let chatSettings = (): Record<string, unknown> => ({});
  const model = setupError
    ? 'none configured'
    : env.LLM_MODEL?.trim() || defaultModels[provider.name as keyof typeof defaultModels];
  try {
    people = await startPeople({
      env,
      logger,
      redactor,
      store,
      audit: store.audit,
      appSettings: () => ({ model, ...chatSettings() }),
      connectHint: connectCommand,
      // MCP servers with OAuth: the browser comes back to this machine's loopback (RFC 8252).
      oauth: { redirectUrl: loopbackRedirect(env).url, clientName: 'ai-assistant (terminal)' },
    });
    const door = people;
    // Where the provider has embeddings, tools are also chosen by meaning; their vectors live in the store.
    const toolRanker = embeddingRanker(provider, { cache: store.toolVectors, logger });
    // No shared tools: each turn brings the local person's view (People.viewFor).
    const chat = new ChatService({
      provider,
      logger,
      ...loop,
      audit: store.audit,
      ...(toolRanker ? { toolRanker } : {}),
    });
    chatSettings = () => chat.settings();
    // The catalog's vectors are read from the store (or computed once) while the person types; --once
    // waits for them, so its one question is chosen for by meaning as well.
    const warming = warmToolVectors(
      toolRanker,
      await door.viewFor(localPerson),
      loop.toolChoice.offerAllUpTo ?? defaultToolChoice.offerAllUpTo,
    );
    if (options.values.once !== undefined) await warming;
    const onEvent = (event: ChatEvent) => {
      const line = describeEvent(event);
      if (line) note(line);
    };

    if (options.values.once !== undefined) {
      // No one to ask: tools that need approval are refused, unless --yes approves them all.
      const tools = await door.viewFor(localPerson);
      const result = await chat.respond({
        ...(tools ? { tools } : {}),
        history: [],
        userMessage: options.values.once,
        // The chat ends with its answer, so a page would have no server: the view is only named.
        onEvent: (event) =>
          event.type === 'tool_view'
            ? note(
                `  🖼️ ${event.server} › ${event.tool} has a view: the chat without --once prints a link to it.\n`,
              )
            : onEvent(event),
        ...(options.values.yes ? { approve: async () => ({ outcome: 'approved' as const }) } : {}),
        // No one to ask: declined, unless --yes and the form's defaults answer it.
        elicit: async (request) => unattendedAnswer(request, options.values.yes === true),
      });
      write(`${result.text}\n`);
      return 0;
    }

    const failed = door.catalog().filter((server) => server.state === 'failed');
    const offered = (await door.viewFor(localPerson))?.listTools().length;
    note(
      `ai-assistant chat — ${setupError ? 'no model configured (questions explain what to set)' : provider.name}, ${offered !== undefined ? plural(offered, 'tool') : 'MCP off'}` +
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
    const terminal = createInterface({
      input: process.stdin,
      output,
      terminal: process.stdin.isTTY,
      // Tab completes commands, and /prompt's servers, prompts, arguments and (from the server) values.
      completer: (line: string, done: (error: null, result: [string[], string]) => void) =>
        void completeLine(line, door).then(
          (result) => done(null, result),
          () => done(null, [[], line]),
        ),
    });
    // Messages an app's page sent, confirmed there by the person: each is asked as their next question.
    const fromPages: string[] = [];
    let pageMessageArrived: (() => void) | undefined;
    views = new TerminalViews({
      people: door,
      person: localPerson,
      audit: store.audit,
      logger,
      message: (text, tool) => {
        note(`\n  🖼️ the ${tool} page asks, as your next question: ${text}\n`);
        fromPages.push(text);
        pageMessageArrived?.();
      },
    });
    const pageViews = views;
    let history: Message[] = [];
    /** Tools the conversation used: they stay offered while a large catalog is chosen from. */
    let usedTools: string[] = [];
    let current: AbortController | undefined;
    // Ctrl-C cancels a running answer, or quits at the prompt.
    const interrupt = () => {
      if (current) current.abort();
      else terminal.close();
    };
    terminal.on('SIGINT', interrupt);
    process.on('SIGINT', interrupt);
    // SIGTERM (pnpm dev restarting it, a supervisor) or SIGHUP (its terminal closed): stop the answer and
    // quit, closing the MCP servers, exit code 0.
    let leaving = false;
    const leave = () => {
      if (leaving) return;
      leaving = true;
      current?.abort();
      terminal.close();
    };
    process.once('SIGTERM', leave);
    process.once('SIGHUP', leave);
    // A terminal that went away (its window closed, the npx above the chat ended) answers EIO to reading
    // and to setRawMode: the chat leaves as on SIGHUP, quietly, instead of dying of the error.
    process.stdin.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EIO') throw error;
      leave();
    });
    terminal.setPrompt('> ');
    terminal.prompt();
    // The line iterator buffers what is typed (or piped) while an answer is being written; an approval
    // question reads its answer from it too.
    const typed = terminal[Symbol.asyncIterator]();
    // A terminal that went away fails the read (EIO): that ends the input, as Ctrl-D does.
    const typedLines: AsyncIterator<string> = {
      next: async () => {
        try {
          return await typed.next();
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EIO') throw error;
          leave();
          return { done: true, value: undefined };
        }
      },
    };
    // The line being waited for at the prompt, while a page's message may come first: whoever reads
    // next (the prompt again, an approval) takes that same line, so no typed line is lost or reordered.
    let waiting: Promise<IteratorResult<string>> | undefined;
    const lines: AsyncIterator<string> = {
      next: () => {
        const line = waiting ?? typedLines.next();
        waiting = undefined;
        return line;
      },
    };
    /** The next typed line, or a page's message (undefined: take it from `fromPages`). */
    const nextAtPrompt = async (): Promise<IteratorResult<string> | undefined> => {
      if (fromPages.length > 0) return undefined;
      waiting ??= typedLines.next();
      const arrived = new Promise<undefined>((resolve) => {
        pageMessageArrived = () => resolve(undefined);
      });
      const next = await Promise.race([waiting, arrived]);
      pageMessageArrived = undefined;
      if (next) waiting = undefined;
      return next;
    };
    const approve = async (request: ApprovalRequest): Promise<ApprovalDecision> => {
      note(approvalSummary(request));
      note('Run it? [y/N/reason] ');
      const answer = await lines.next();
      return approvalAnswer(answer.done ? '' : String(answer.value));
    };
    const elicit = (request: ElicitationRequest) => askAtPrompt(request, lines, note);
    for (;;) {
      const next = await nextAtPrompt();
      if (next?.done) break;
      const fromPage = next ? undefined : fromPages.shift();
      const line = fromPage ?? String(next?.value ?? '');
      // A page's message is a question, never a command.
      const command = fromPage
        ? undefined
        : line.trim()
          ? await runCommand(line, door, {
              approve,
              audit: store.audit,
              toolsFor: (view, words) => chat.toolsFor(view, words),
            })
          : { output: '' };
      if (command?.credential) {
        const { server, disconnect } = command.credential;
        const found = server ? door.personalServer(server) : undefined;
        if (!server || found instanceof ConnectRefused)
          write(`${connectProblem(server, found instanceof ConnectRefused ? found.problem : undefined)}\n`);
        else if (disconnect)
          write(
            (await door.disconnect(localPerson, server))
              ? `Disconnected ${server}: ${found?.oauth ? 'your tokens are revoked and deleted' : 'your token is deleted'}.\n`
              : `You had not connected ${server}.\n`,
          );
        else if (found?.oauth)
          write(`${await connectWithBrowser({ people: door, person: localPerson, server, env, write })}\n`);
        else {
          const help = found?.credentialHelp;
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
            await door.connect(localPerson, server, value);
            write(`\n✓ connected: ${server} now uses your own token.\n`);
          }
        }
        terminal.prompt();
        continue;
      }
      let turn: { history: Message[]; userMessage: string; autoContextQuery?: string } = {
        history,
        userMessage: line,
      };
      if (command) {
        if (command.output) write(`${command.output}\n`);
        if (command.history) {
          history = command.history;
          if (history.length === 0) usedTools = [];
        }
        if (command.exit) break;
        if (!command.ask) {
          terminal.prompt();
          continue;
        }
        turn = { ...command.ask, history: [...history, ...command.ask.history] };
      }
      current = new AbortController();
      const shown: Array<Promise<void>> = [];
      try {
        let streamed = false;
        const tools = await door.viewFor(localPerson);
        const result = await chat.respond({
          ...turn,
          usedTools,
          ...(tools ? { tools } : {}),
          signal: current.signal,
          streamText: true,
          approve,
          elicit,
          onEvent: (event) => {
            if (event.type === 'text_delta') {
              streamed = true;
              write(event.text);
            } else if (event.type === 'tool_view')
              shown.push(
                pageViews.linkFor(event).then(
                  (url) => {
                    note(viewLine(event, url));
                  },
                  (error: unknown) => {
                    note(`  🖼️ no link to the view: ${failure(error)}\n`);
                  },
                ),
              );
            else onEvent(event);
          },
        });
        write(streamed ? '\n' : `${result.text}\n`);
        history = result.history;
        usedTools = result.usedTools;
      } catch (error) {
        note(`${failure(error)}\n`);
      } finally {
        current = undefined;
        await Promise.all(shown);
      }
      terminal.prompt();
    }
    terminal.close();
    return 0;
  } catch (error) {
    note(`${failure(error)}\n`);
    return 1;
  } finally {
    await views?.close();
    await people?.close();
    await store.close();
  }
}

// What is written to a terminal that went away is lost (EIO), a closed pipe's too (EPIPE): not an error.
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EIO' && error.code !== 'EPIPE') throw error;
  });

// Exit at once: idle keep-alive sockets to the model API would otherwise hold the process a few seconds.
process.exit(await main());
