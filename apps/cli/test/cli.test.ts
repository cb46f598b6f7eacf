import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, resolve } from 'node:path';
import { type FakeJma, startFakeJma } from '@ai-assistant/mcp-server-weather/testing';
import { openStoreFromEnvironment } from '@ai-assistant/store';
import {
  childProcesses,
  completion,
  embeddedStoreFolder,
  type FakeVendor,
  type PetApi,
  petModel,
  petSpec,
  recordsServerPath,
  startFakeVendor,
  weatherEntry,
  weatherModel,
  writeMcpConfig,
} from '@ai-assistant/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type OpenApiChat, run, startOpenApiChat } from './run-chat.js';

// Every chat a test started has exited, with its MCP servers: nothing outlives a test.
afterEach(() => {
  expect(childProcesses()).toEqual([]);
});

describe('terminal chat without an LLM', () => {
  it('says exactly which variables to set', async () => {
    const result = await run(['--once', 'hi'], {});
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('OPENAI_API_KEY');
    expect(result.stderr).toContain('ANTHROPIC_API_KEY');
    expect(result.stderr).toContain('LLM_BASE_URL');
  });

  it('a malformed number is named and nothing starts, as in the Slack app', async () => {
    const result = await run(['--once', 'hi'], {
      OPENAI_API_KEY: 'sk-x-123456',
      TOOL_CALL_TIMEOUT_MS: 'soon',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('TOOL_CALL_TIMEOUT_MS must be a whole number ≥ 1');
  });

  it('still opens: /tools and /servers work, and a question answers with the variables to set', async () => {
    const jma = await startFakeJma();
    const config = writeMcpConfig(jma.baseUrl);
    try {
      const result = await run(
        [],
        { MCP_ENABLED: 'true', MCP_SERVERS_CONFIG: config.path },
        '/tools\n/servers\n東京の天気は？\n',
      );
      expect(result.code).toBe(0);
      expect(result.stderr).toContain('no model configured');
      expect(result.stdout).toContain('mcp__weather__get_weather');
      expect(result.stdout).toMatch(/weather.*connected/);
      expect(result.stderr).toContain('OPENAI_API_KEY');
      expect(result.stderr).toContain('LLM_BASE_URL');
    } finally {
      config.remove();
      await jma.close();
    }
  });
});

describe('#48 a failing server at the prompt', () => {
  it('a server that keeps failing is printed once, not at every retry; /servers offers no /connect for a disabled server', async () => {
    const folder = mkdtempSync(resolve(tmpdir(), 'failing-server-'));
    const starts = resolve(folder, 'starts.txt');
    const failing = resolve(folder, 'failing.mjs');
    // A server that cannot start, noting each attempt so the test can wait for the retries.
    writeFileSync(
      failing,
      `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(starts)}, 'start\\n');\nprocess.stderr.write('notes: /nowhere is not a folder\\n');\nprocess.exit(2);\n`,
    );
    const config = writeMcpConfig('http://127.0.0.1:9', {
      notes: { command: process.execPath, args: [failing] },
      tickets: {
        type: 'http',
        url: 'http://127.0.0.1:9/mcp',
        headers: { Authorization: 'Bearer ${token}' },
        disabled: true,
      },
    });
    const startsSoFar = () => {
      try {
        return readFileSync(starts, 'utf8').split('\n').length - 1;
      } catch {
        return 0;
      }
    };
    const dataDir = embeddedStoreFolder('failing-server-');
    const child = spawn(process.execPath, [resolve(import.meta.dirname, '..', 'dist', 'main.js')], {
      cwd: folder,
      env: {
        PATH: process.env.PATH ?? '',
        MCP_ENABLED: 'true',
        MCP_SERVERS_CONFIG: config.path,
        DATA_DIR: dataDir,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise((done) => child.once('exit', done));
    try {
      const deadline = Date.now() + 60_000;
      while (startsSoFar() < 3 && Date.now() < deadline) await new Promise((done) => setTimeout(done, 100));
      expect(startsSoFar()).toBeGreaterThanOrEqual(3);
      child.stdin.end('/servers\n');
      expect(await exited).toBe(0);
      expect(stderr.match(/MCP server failed to start/g)).toHaveLength(1);
      expect(stderr.match(/MCP server down; restarting it/g)).toHaveLength(1);
      expect(stderr).toContain('/nowhere is not a folder');
      // Between two of the supervisor's attempts, or in the next one: never connected.
      expect(stdout).toMatch(/notes \(stdio\): (failed|restarting|connecting)/);
      expect(stdout).toMatch(/tickets \(http\): disabled/);
      expect(stdout).not.toContain('/connect tickets');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      config.remove();
      rmSync(folder, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
    }
  });
});

describe('#48 every chat command is in --help', () => {
  it("pnpm start --help and the chat's --help list every command of the table the chat dispatches on, and the chat accepts each", async () => {
    const table = JSON.parse(
      readFileSync(resolve(import.meta.dirname, '..', 'chat-commands.json'), 'utf8'),
    ) as Array<{ names: string[]; usage: string; summary: string }>;
    expect(table.flatMap((command) => command.names).length).toBeGreaterThanOrEqual(13);
    const startHelp = spawnSync(
      process.execPath,
      [resolve(import.meta.dirname, '..', '..', '..', 'scripts', 'start.mjs'), '--help'],
      { encoding: 'utf8' },
    ).stdout;
    const chatHelp = (await run(['--help'], {})).stdout;
    for (const help of [startHelp, chatHelp])
      for (const command of table) {
        expect(help).toContain(`${command.usage}  `);
        expect(help).toContain(command.summary);
        for (const name of command.names) expect(help).toMatch(new RegExp(`(^|\\s)${name}(\\s|$)`, 'm'));
      }
    // Each one typed bare is a command the chat knows (the last quits).
    const names = table.flatMap((command) => command.names);
    const typed = await run(
      [],
      { MCP_ENABLED: 'false' },
      `${names.filter((name) => name !== '/quit' && name !== '/exit').join('\n')}\n/quit\n`,
    );
    expect(typed.code).toBe(0);
    expect(typed.stdout).not.toContain('Unknown command');
  });
});

describe('#48 /call and /tools say what a tool takes', () => {
  it('/call names the wrong or missing argument and shows the expected ones with an example; /tools lists arguments', async () => {
    const jma = await startFakeJma();
    const config = writeMcpConfig(jma.baseUrl);
    try {
      const tool = 'mcp__weather__get_weather';
      const result = await run(
        [],
        { MCP_ENABLED: 'true', MCP_SERVERS_CONFIG: config.path },
        [
          '/tools',
          '/tools 天気',
          `/call ${tool} {"location": 7}`,
          `/call ${tool} {}`,
          `/call ${tool} {"location": "東京", "days": 3}`,
          '',
        ].join('\n'),
      );
      expect(result.code).toBe(0);
      // /tools and /tools <words>: each tool with its arguments, the required ones marked.
      expect(result.stdout).toContain('(* marks a required argument)');
      expect(result.stdout.match(/mcp__weather__get_weather \(location\*, date\) — /g)).toHaveLength(2);
      // /call: what is wrong, then what the tool takes and an example; the server is never called.
      expect(result.stdout).toContain('Not run: argument "location" must be string, got integer.');
      expect(result.stdout).toContain('Not run: missing required argument(s): location.');
      expect(result.stdout).toContain('Not run: unknown argument(s) days');
      expect(
        result.stdout.match(/get_weather takes:\n {2}location {2}string, required — 日本国内の地名/g),
      ).toHaveLength(3);
      expect(result.stdout).toMatch(/\n {2}date {6}string, optional — "today"/);
      expect(result.stdout).toContain(`Example: /call ${tool} {"location": "…"}`);
    } finally {
      config.remove();
      await jma.close();
    }
  });
});

describe('#48 check-config reports every problem in one run', () => {
  it("every entry's every problem (file with its .local.json, field, fix), and a JSON syntax error at file:line:column", async () => {
    const folder = mkdtempSync(resolve(tmpdir(), 'check-all-'));
    try {
      const path = resolve(folder, 'servers.json');
      const localPath = resolve(folder, 'servers.local.json');
      writeFileSync(
        path,
        JSON.stringify({
          mcpServers: {
            wiki: { command: 'node', timeout_ms: 'soon', alowed_tools: ['search'] },
            docs: { url: 'https://docs.example.test/mcp', restart: 'always' },
            files: { command: 'node', args: ['${FILES_ROOT_UNSET}'], env: { KEY: '${FILES_KEY_UNSET}' } },
          },
        }),
      );
      writeFileSync(localPath, JSON.stringify({ mcpServers: { docs: { headers: { 'X-Team': 7 } } } }));
      const all = await run(['--check-config'], { MCP_ENABLED: 'true', MCP_SERVERS_CONFIG: path });
      expect(all.code).toBe(1);
      const label = `${path} (with ${localPath})`;
      const problems = all.stdout.split('\n').filter((line) => line.includes('✗'));
      expect(problems).toHaveLength(6);
      for (const line of problems) expect(line).toContain(label);
      for (const expected of [
        'mcpServers.wiki.timeout_ms: expected a positive whole number',
        'mcpServers.wiki.alowed_tools: unknown field; did you mean "allowed_tools"?',
        'mcpServers.docs.restart: expected "on-failure"',
        'mcpServers.docs.headers.X-Team: expected an object whose values are strings',
        'mcpServers.files.args[0]: ${FILES_ROOT_UNSET} is not set in the environment; set FILES_ROOT_UNSET',
        'mcpServers.files.env.KEY: ${FILES_KEY_UNSET} is not set in the environment; set FILES_KEY_UNSET',
      ])
        expect(all.stdout).toContain(expected);
      // A file that is not JSON: where (as editors name a place), what is wrong and what to do.
      const syntax = resolve(folder, 'syntax.json');
      writeFileSync(syntax, '{\n  "mcpServers": {\n    "a": { "command": "node", }\n  }\n}\n');
      const broken = await run(['--check-config'], { MCP_ENABLED: 'true', MCP_SERVERS_CONFIG: syntax });
      expect(broken.code).toBe(1);
      expect(broken.stdout).toContain(
        `${syntax}:3:31: not valid JSON: Expected double-quoted property name; put property names in double quotes, and remove a trailing comma`,
      );
      expect(broken.stderr).not.toContain('    at ');
    } finally {
      rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
    }
  });
});

describe('terminal chat with the real weather server', () => {
  let llm: FakeVendor;
  let jma: FakeJma;
  let config: ReturnType<typeof writeMcpConfig>;
  let env: Record<string, string>;
  beforeAll(async () => {
    [llm, jma] = await Promise.all([startFakeVendor(), startFakeJma()]);
    llm.respondWith(weatherModel);
    config = writeMcpConfig(jma.baseUrl);
    env = {
      OPENAI_API_KEY: 'sk-cli-test-0123456',
      OPENAI_BASE_URL: llm.baseURL,
      LLM_MAX_RETRIES: '0',
      MCP_ENABLED: 'true',
      MCP_SERVERS_CONFIG: config.path,
    };
  });
  afterAll(async () => {
    await Promise.all([llm?.close(), jma?.close()]);
    config?.remove();
  });

  it('--check-config says which servers start with which tools, without a model; a broken config names the file and field', async () => {
    const { OPENAI_API_KEY: _key, ...noModel } = env;
    const good = await run(['--check-config'], noModel);
    expect(good.code).toBe(0);
    expect(good.stdout).toContain(`${config.path}: valid, 1 server.`);
    expect(good.stdout).toContain('✓ weather (stdio): starts (MCP 2026-07-28) — 1 tool: get_weather');
    expect(good.stdout).toContain('Every enabled server starts.');
    const folder = mkdtempSync(resolve(tmpdir(), 'check-config-'));
    try {
      const broken = resolve(folder, 'servers.json');
      writeFileSync(
        broken,
        JSON.stringify({ mcpServers: { wiki: { command: 'node', timeout_ms: 'soon' } } }),
      );
      const bad = await run(['--check-config'], { ...noModel, MCP_SERVERS_CONFIG: broken });
      expect(bad.code).toBe(1);
      expect(bad.stdout).toMatch(new RegExp(`${broken.replaceAll('/', '\\/')}.*wiki.*timeout_ms`));
      const failing = resolve(folder, 'failing.json');
      writeFileSync(
        failing,
        JSON.stringify({ mcpServers: { gone: { command: resolve(folder, 'no-such-binary') } } }),
      );
      const failed = await run(['--check-config'], { ...noModel, MCP_SERVERS_CONFIG: failing });
      expect(failed.code).toBe(1);
      expect(failed.stdout).toMatch(/✗ gone \(stdio\): did not start — .*no-such-binary/);
      expect(failed.stdout).toContain('1 server failed to start');
      // With a local overlay beside it, the report names both files.
      writeFileSync(
        resolve(folder, 'failing.local.json'),
        JSON.stringify({ mcpServers: { gone: { disabled: true } } }),
      );
      const overlaid = await run(['--check-config'], { ...noModel, MCP_SERVERS_CONFIG: failing });
      expect(overlaid.stdout).toContain(
        `${failing} (with ${resolve(folder, 'failing.local.json')}): valid, 1 server.`,
      );
      expect(overlaid.code).toBe(0);
      // A server that starts on first use is started once to list its tools, then reported as such.
      writeFileSync(
        resolve(folder, 'failing.local.json'),
        JSON.stringify({
          mcpServers: {
            gone: {
              command: 'node',
              args: [weatherEntry],
              start: 'on_first_use',
              env: { JMA_BASE_URL: 'http://127.0.0.1:9' },
            },
          },
        }),
      );
      const lazy = await run(['--check-config'], { ...noModel, MCP_SERVERS_CONFIG: failing });
      expect(lazy.stdout).toContain(
        '✓ gone (stdio): starts on first use (started once to list its tools, then stopped) — 1 tool: get_weather',
      );
      expect(lazy.code).toBe(0);
      // A malformed setting is one clear line, not a stack trace.
      const malformed = await run(['--check-config'], { ...noModel, MCP_START_CONCURRENCY: 'abc' });
      expect(malformed.stdout).toContain('MCP_START_CONCURRENCY must be a whole number');
      expect(malformed.stderr).not.toContain('    at ');
      expect(malformed.code).toBe(1);
    } finally {
      rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
    }
  });

  it('a tool call in the terminal reaches the audit trail, as in Slack (pnpm audit-export reads it)', async () => {
    const dataDir = embeddedStoreFolder('chat-audit-');
    try {
      const result = await run(['--once', '東京の天気は？'], { ...env, DATA_DIR: dataDir });
      expect(result.code).toBe(0);
      const store = await openStoreFromEnvironment({ DATA_DIR: dataDir });
      try {
        const rows = await store.audit.recent('local');
        expect(rows.map((row) => [row.kind, row.server, row.tool, row.outcome])).toEqual([
          ['tool_call', 'weather', 'get_weather', 'ok'],
        ]);
        expect(rows[0]?.arguments).toContain('東京');
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
    }
  });

  it('/call runs one tool without the model: by name or server/tool, a write asks first, every call audited', async () => {
    const dataDir = embeddedStoreFolder('chat-call-');
    const withRecords = writeMcpConfig(jma.baseUrl, {
      records: { command: process.execPath, args: [recordsServerPath] },
    });
    try {
      const input = [
        '/call get_weather {"location": "東京"}',
        '/call weather/get_weather {oops',
        '/call nothing_here {}',
        '/call delete_record {"id": "r1"}',
        'not today',
        '/call mcp__records__delete_record {"id": "r2"}',
        'y',
        '/read host host://settings',
        '/exit',
        '',
      ].join('\n');
      const requestsBefore = llm.requests.length;
      const result = await run(
        [],
        { ...env, MCP_SERVERS_CONFIG: withRecords.path, DATA_DIR: dataDir },
        input,
      );
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('晴れ時々くもり');
      expect(result.stdout).toContain('Not run: the arguments are not JSON');
      expect(result.stdout).toContain('No tool nothing_here');
      // #48 the person's reason is shown back, and the declined call is audited as denied.
      expect(result.stdout).toContain(
        'Not run: mcp__records__delete_record changes things and was not approved, saying: "not today".',
      );
      expect(result.stdout).toContain('deleted with {"id":"r2"}');
      expect(result.stdout).not.toContain('deleted with {"id":"r1"}');
      // The model was never asked.
      expect(llm.requests.length).toBe(requestsBefore);
      // How the chat is set up, readable by the person: the model, the loop's limits, the servers.
      expect(result.stdout).toContain('"toolRoundsPerAnswer": 10');
      expect(result.stdout).toMatch(/"name": "records",\s+"transport": "stdio",\s+"tools": 1/);
      const store = await openStoreFromEnvironment({ DATA_DIR: dataDir });
      try {
        const rows = (await store.audit.recent('local')).reverse();
        expect(rows.map((row) => [row.tool, row.outcome, row.approval ? 'approved' : 'auto'])).toEqual([
          ['get_weather', 'ok', 'auto'],
          ['delete_record', 'denied', 'auto'],
          ['delete_record', 'ok', 'approved'],
        ]);
        // Nothing ran for the declined call: its duration is not the time the person took to answer.
        expect(rows[1]?.durationMs).toBe(0);
        expect(rows[1]?.arguments).toContain('r1');
      } finally {
        await store.close();
      }
    } finally {
      withRecords.remove();
      rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
    }
  });

  it('pnpm chat --once prints the answer and exits', async () => {
    const result = await run(['--once', '東京の天気は？'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('晴れ時々くもり');
    // Progress lines name the server as well as the tool.
    expect(result.stderr).toMatch(/🔧 weather › get_weather\(\{"location":"東京"\}\) …/);
    expect(result.stderr).toMatch(/✓ weather › get_weather \d+ ms/);
  });

  it('#44 a turn in the terminal near its deadline (ANSWER_TIMEOUT_MS) wraps up as in Slack: no new tools, tool choice "none"', async () => {
    // Each model call takes 300 ms and asks for the weather again, with rounds enough for minutes; the
    // answer has 6 s. Without a deadline the model gives up by itself after 40 calls (12 s and more).
    const before = llm.requests.length;
    llm.respondWith(async (request) => {
      if (request.body.tool_choice === 'none')
        return completion(request, {
          text: 'ここまでの結果では東京は晴れです（全部は確かめられませんでした）',
        });
      if (llm.requests.length - before > 40)
        return completion(request, { text: '時間の制限はありませんでした' });
      await new Promise((done) => setTimeout(done, 300));
      return completion(request, {
        toolCall: { name: 'mcp__weather__get_weather', arguments: { location: '東京' } },
      });
    });
    try {
      const result = await run(['--once', '東京の天気は？'], {
        ...env,
        ANSWER_TIMEOUT_MS: '6000',
        TOOL_LOOP_MAX_ITERATIONS: '1000',
      });
      expect(result.stdout).toContain('ここまでの結果では東京は晴れです');
      expect(result.code).toBe(0);
      const last = llm.requests.at(-1)?.body as {
        tool_choice?: unknown;
        messages: Array<{ content: unknown }>;
      };
      expect(last.tool_choice).toBe('none');
      expect(JSON.stringify(last.messages.at(-1)?.content)).toContain('almost up');
    } finally {
      llm.respondWith(weatherModel);
    }
  });

  it('logs: JSON lines when piped, readable lines with LOG_FORMAT=pretty; a normal exit warns of nothing', async () => {
    const piped = await run([], { ...env, LOG_LEVEL: 'info' }, '/exit\n');
    expect(piped.stderr).toMatch(/^\{"level":30,"time":\d+,.*"msg":"MCP server weather: connected/m);
    const readable = await run([], { ...env, LOG_LEVEL: 'info', LOG_FORMAT: 'pretty' }, '/exit\n');
    expect(readable.stderr).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: MCP server connected/m);
    expect(readable.stderr).not.toContain('{"level"');
    // The default level shows warnings: a clean exit must print none.
    const quiet = await run([], env, '/tools\n/exit\n');
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).not.toMatch(/"level":[45]0|WARN|ERROR/);
  });

  it('interactive: /servers, /tools, a question, /reset, /exit', async () => {
    const result = await run([], env, '/servers\n/tools\n八丈島の天気は？\n/reset\n/exit\n');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('weather (stdio): connected — 1 tool');
    expect(result.stdout).not.toContain('1 tools');
    expect(result.stdout).toContain('mcp__weather__get_weather');
    expect(result.stdout).toContain('伊豆諸島南部');
    expect(result.stdout).toContain('The conversation was reset.');
  });

  it('resources and prompts: /resources, /read, /prompts, /prompt sends the prompt as the next question', async () => {
    const docs = mkdtempSync(resolve(tmpdir(), 'chat-docs-'));
    writeFileSync(
      resolve(docs, 'deploy.md'),
      '# Deploy process\n\n## Rollback\nRevert the release tag, then redeploy.\n',
    );
    const configPath = resolve(docs, '..', `${docs.split('/').pop()}-servers.json`);
    const knowledgeEntry = resolve(import.meta.dirname, '../../../mcp_servers/knowledge/dist/index.js');
    writeFileSync(
      configPath,
      JSON.stringify({
        mcpServers: {
          kb: {
            command: process.execPath,
            args: [knowledgeEntry, '--docs', docs],
            auto_context_tool: 'search_knowledge',
          },
        },
      }),
    );
    try {
      const input =
        '/resources\n/read kb kb://documents/deploy.md\n/prompts\n/prompt kb answer_with_context question="how to roll back"\n/exit\n';
      const result = await run([], { ...env, MCP_SERVERS_CONFIG: configPath }, input);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('kb  kb://documents/deploy.md  Deploy process');
      expect(result.stdout).toContain('Revert the release tag, then redeploy.');
      expect(result.stdout).toContain('kb answer_with_context question=…');
      expect(result.stdout).toContain('(prompt kb/answer_with_context sent)');
      // The fake model echoes the question it got: the filled prompt, passages included.
      expect(result.stdout).toContain('ツールなしで答えます: Answer the question using only these passages');
      // The auto-context lookup shows like any tool call, and looks up what was given to the prompt,
      // not the prompt's whole text (before: {"query":"Answer the question using only these passages…).
      expect(result.stderr).toMatch(/🔎 kb › search_knowledge\(\{"query":"how to roll back"\}\)/);
      expect(result.stderr).toMatch(/✓ kb › search_knowledge \d+ ms/);
    } finally {
      rmSync(docs, { recursive: true, force: true, maxRetries: 5 });
      rmSync(configPath, { force: true });
    }
  });
});

describe('terminal chat: tools that change things wait for a yes', () => {
  let chat: OpenApiChat;
  let api: PetApi;
  let env: Record<string, string>;
  beforeAll(async () => {
    chat = await startOpenApiChat('pets', petSpec, petModel);
    ({ api, env } = chat);
  });
  afterAll(async () => {
    await chat?.close();
  });
  const posts = () => api.received.filter((request) => request.method === 'POST').length;

  it('the summary and "Run it? [y/N/reason]"; y runs it, a reason denies it and the model reads the reason', async () => {
    const approved = await run([], env, 'ポチを登録して\ny\n/exit\n');
    expect(approved.code).toBe(0);
    expect(approved.stderr).toContain(
      '🔐 addPet (server pets, may change or delete data) wants to run with:',
    );
    expect(approved.stderr).toContain('name = ポチ');
    expect(approved.stderr).toContain('Run it? [y/N/reason]');
    expect(posts()).toBe(1);
    const denied = await run([], env, 'ポチを登録して\n名前はタマにして\n/exit\n');
    expect(denied.stdout).toContain('名前はタマにして');
    expect(posts()).toBe(1);
  });

  it('--once: no one to ask, so the write is refused; --yes approves it', async () => {
    const refused = await run(['--once', 'ポチを登録して'], env);
    expect(refused.code).toBe(0);
    expect(refused.stdout).toContain("needs a person's approval");
    expect(posts()).toBe(1);
    const yes = await run(['--once', 'ポチを登録して', '--yes'], env);
    expect(yes.code).toBe(0);
    expect(posts()).toBe(2);
    // --yes before the question works too (before: "Option '--once' argument is ambiguous", exit 2).
    const yesFirst = await run(['--once', '--yes', 'ポチを登録して'], env);
    expect(yesFirst.stderr).not.toMatch(/ambiguous/);
    expect(yesFirst.code).toBe(0);
    expect(posts()).toBe(3);
  });
});

describe('a server’s questions at the prompt (server-everything from npm)', () => {
  let llm: FakeVendor;
  let folder: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    llm = await startFakeVendor();
    llm.respondWith((request) => {
      const messages = (request.body.messages ?? []) as Array<{ role: string; content: string | null }>;
      const last = messages.at(-1);
      if (last?.role === 'tool') return completion(request, { text: `結果: ${last.content}` });
      return completion(request, {
        toolCall: { name: 'mcp__everything__trigger-elicitation-request', arguments: {} },
      });
    });
    folder = mkdtempSync(resolve(tmpdir(), 'chat-everything-'));
    const path = resolve(folder, 'mcp_servers.json');
    const entry = resolve(
      dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
      'dist',
      'index.js',
    );
    writeFileSync(
      path,
      JSON.stringify({
        mcpServers: { everything: { command: process.execPath, args: [entry, 'stdio'], approval: 'auto' } },
      }),
    );
    env = {
      OPENAI_API_KEY: 'sk-cli-test-0123456',
      OPENAI_BASE_URL: llm.baseURL,
      LLM_MAX_RETRIES: '0',
      MCP_ENABLED: 'true',
      MCP_SERVERS_CONFIG: path,
    };
  });
  afterAll(async () => {
    await llm?.close();
    rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
  });

  it('the form is asked field by field, defaults in brackets; the server gets the answers', async () => {
    const chat = await run([], env, `フォームで聞いて\ny\nTaro Yamada\n${'\n'.repeat(20)}/exit\n`);
    expect(chat.code).toBe(0);
    expect(chat.stderr).toContain('📝 everything asks: Please provide inputs for the following fields:');
    expect(chat.stderr).toContain('Integer (Your favorite integer');
    expect(chat.stderr).toContain('[42]');
    expect(chat.stdout).toContain('User provided the requested information');
    expect(chat.stdout).toContain('Taro Yamada');
  });

  it('--once: nobody to ask, so the question is declined (a required field has no default, even with --yes)', async () => {
    const once = await run(['--once', 'フォームで聞いて', '--yes'], env);
    expect(once.code).toBe(0);
    expect(once.stdout).toContain('User declined');
  });
});
