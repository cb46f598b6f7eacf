import { resolve } from 'node:path';
import {
  childProcesses,
  completion,
  type FakeRequest,
  type FakeVendor,
  type PetApi,
} from '@ai-assistant/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type OpenApiChat, run, startOpenApiChat } from './run-chat.js';

afterEach(() => {
  expect(childProcesses()).toEqual([]);
});

/** A work catalog of 31 read-only operations: more than one request carries whole (24). */
const operations: Array<[string, string]> = [
  ['listPullRequests', 'List open pull requests of a repository.'],
  ['mergePullRequest', 'Merge a pull request into its base branch.'],
  ['listIssues', 'List issues of a project, filtered by label or assignee.'],
  ['getIssue', 'Get one issue with its comments.'],
  ['listCalendarEvents', 'List calendar events between two dates.'],
  ['getFreeBusy', 'Find free and busy times of colleagues.'],
  ['searchEmail', 'Search the inbox for email messages.'],
  ['getEmailThread', 'Read a whole email thread.'],
  ['retrieveBalance', 'Retrieve the account balance: available and pending funds.'],
  ['listInvoices', 'List invoices of a customer.'],
  ['listRefunds', 'List refunds issued in a period.'],
  ['getCustomer', 'Get a customer by id or email.'],
  ['listDeployments', 'List recent deployments of a service.'],
  ['listErrors', 'List unresolved errors and exceptions of a project.'],
  ['getErrorEvent', 'Get the stack trace of one error event.'],
  ['searchDocuments', 'Search shared documents and files by title.'],
  ['readDocument', 'Read the content of a document.'],
  ['translateText', 'Translate text between languages.'],
  ['getDirections', 'Directions and travel time between two places.'],
  ['searchPlaces', 'Search places nearby on the map.'],
  ['runSqlQuery', 'Run a read-only SQL query on the database.'],
  ['listTables', 'List the tables of a database schema.'],
  ['getForecast', 'Weather forecast for the next days.'],
  ['listChannels', 'List chat channels of the workspace.'],
  ['searchMessages', 'Search chat messages by keyword.'],
  ['listFeatureFlags', 'List feature flags and their state.'],
  ['getMetrics', 'Query time series metrics of a host.'],
  ['listMonitors', 'List alerting monitors and their status.'],
  ['listPipelines', 'List recent CI pipelines and their status.'],
  ['getPipelineLogs', 'Read the logs of one CI job.'],
  ['getAirQuality', 'Current PM2.5 and ozone index of a city.'],
];

const spec = {
  openapi: '3.0.3',
  info: { title: 'Work', version: '1.0.0' },
  paths: Object.fromEntries(
    operations.map(([id, summary]) => [`/${id}`, { get: { operationId: id, summary } }]),
  ),
};

const question = '外の空気はきれい？';
const noTool = 'その道具は見当たりません';

/** Offers the air-quality tool's result when it was offered; otherwise says it has no such tool. */
function airModel(request: FakeRequest) {
  const messages = request.body.messages as Array<{ role: string; content: string | null }>;
  const result = messages.find((message) => message.role === 'tool');
  if (result) return completion(request, { text: `空気の状態: ${result.content}` });
  const offered = offeredNames(request);
  const air = offered.find((name) => name.endsWith('getAirQuality'));
  if (air) return completion(request, { toolCall: { name: air, arguments: {} } });
  return completion(request, { text: noTool });
}

function offeredNames(request: FakeRequest): string[] {
  return ((request.body.tools ?? []) as Array<{ function: { name: string } }>).map(
    (tool) => tool.function.name,
  );
}

/** Every text the embeddings endpoint was asked for, in order. */
function embedded(llm: FakeVendor): string[] {
  return llm.embeddings.requests.flatMap((request) => {
    const input = request.body.input;
    return Array.isArray(input) ? (input as string[]) : [String(input)];
  });
}

describe('#42 semantic tool choice (the provider’s embeddings, vectors in the store)', () => {
  let chat: OpenApiChat;
  let llm: FakeVendor;
  let api: PetApi;
  let env: Record<string, string>;
  beforeAll(async () => {
    chat = await startOpenApiChat('work', spec, airModel);
    ({ llm, api } = chat);
    // One store for every run: the second run is a restart.
    env = { ...chat.env, DATA_DIR: resolve(chat.folder, 'data') };
  });
  afterAll(async () => {
    await chat?.close();
  });

  it('#42 a Japanese question reaches the English tool it shares no word with; a restart embeds no tool again; a failing endpoint falls back to words', async () => {
    const first = await run(['--once', question], env);
    expect(first.code).toBe(0);
    const asked = llm.requests.filter((request) => /chat\/completions/.test(request.path));
    // Offered by meaning: the catalog (31) is narrowed, and the tool is among the few.
    expect(offeredNames(asked[0] as FakeRequest)).toContain('mcp__work__getAirQuality');
    expect(offeredNames(asked[0] as FakeRequest).length).toBeLessThan(operations.length);
    expect(api.received.map((request) => `${request.method} ${request.url}`)).toEqual([
      'GET /api/getAirQuality',
    ]);
    expect(first.stdout).toContain('空気の状態');
    // Each tool embedded once, then the question.
    const texts = embedded(llm);
    expect(texts).toHaveLength(operations.length + 1);
    expect(texts.at(-1)).toBe(question);

    // A restart with the same store: only the question is embedded.
    llm.embeddings.requests.length = 0;
    llm.requests.length = 0;
    const second = await run(['--once', question], env);
    expect(second.code).toBe(0);
    expect(embedded(llm)).toEqual([question]);
    expect(offeredNames(llm.requests[0] as FakeRequest)).toContain('mcp__work__getAirQuality');

    // The endpoint fails (5xx): both questions are answered by the words' choice, nobody sees an error,
    // and the log warns once.
    llm.embeddings.fail(500);
    llm.embeddings.requests.length = 0;
    llm.requests.length = 0;
    const third = await run([], { ...env, LOG_LEVEL: 'warn' }, `${question}\n${question}\n/exit\n`);
    llm.embeddings.fail(undefined);
    expect(third.code).toBe(0);
    expect(third.stdout.split(noTool)).toHaveLength(3);
    expect(third.stdout).not.toMatch(/error|500/i);
    expect(llm.requests.map(offeredNames).every((names) => !names.includes('mcp__work__getAirQuality'))).toBe(
      true,
    );
    const warnings = third.stderr.split('\n').filter((line) => /embeddings/i.test(line));
    expect(warnings).toHaveLength(1);
    expect(llm.embeddings.requests).toHaveLength(1);
  });
});
