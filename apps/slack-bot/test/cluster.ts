import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { newKey } from '@ai-assistant/store';
import {
  completion,
  type FakeRequest,
  type FakeSlack,
  type FakeVendor,
  freePort,
  type RoundRobinProxy,
  startFakeSlack,
  startFakeVendor,
  startPostgres,
  startRoundRobinProxy,
  type TestPostgres,
} from '@ai-assistant/test-kit';
import { runBotProcess } from './harness.js';

const mainEntry = resolve(import.meta.dirname, '..', 'dist', 'main.js');
export const signingSecret = 'cluster-signing-secret-0123';

/** The last thing the person said in a Chat Completions request (the question being answered). */
export function lastQuestion(request: FakeRequest): string {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: unknown }>;
  const last = messages.filter((message) => message.role === 'user').at(-1);
  return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
}

/**
 * A model that takes `delayMs` per call (as a real one would) and answers "answer to <question>".
 * `onCall` sees each question when its call starts, and may hold it (returning a promise).
 */
export function slowEchoModel(delayMs: number, onCall?: (question: string) => Promise<void> | void) {
  return async (request: FakeRequest) => {
    const question = lastQuestion(request)
      .replace(/<@[A-Z0-9]+>\s*/g, '')
      .trim();
    await onCall?.(question);
    await new Promise((done) => setTimeout(done, delayMs));
    return completion(request, { text: `answer to ${question}` });
  };
}

/** One bot process of the cluster. */
export interface Replica {
  url: string;
  child: ReturnType<typeof runBotProcess>['child'];
  exited: Promise<number | null>;
  output(): string;
}

/** Several bot processes in HTTP mode on one PostgreSQL, behind a round-robin proxy. */
export interface Cluster {
  postgres: TestPostgres;
  databaseUrl: string;
  /** The replicas' ASSISTANT_ENCRYPTION_KEY (a test opening the same store needs it). */
  key: string;
  slack: FakeSlack;
  llm: FakeVendor;
  proxy: RoundRobinProxy;
  replicas: Replica[];
  /** Starts another replica in place of `index` (after it died). */
  restart(index: number): Promise<Replica>;
  close(): Promise<void>;
}

/** Waits until `url`'s /healthz answers `status` (bounded). */
export async function healthIs(url: string, status: number, ms = 30_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5000) }).catch(
      () => undefined,
    );
    if (response?.status === status) return (await response.json()) as Record<string, unknown>;
    await response?.arrayBuffer();
    if (Date.now() > deadline) throw new Error(`${url}/healthz did not answer ${status} within ${ms} ms`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

/**
 * Starts PostgreSQL, the fakes and `count` replicas (each `MAX_CONCURRENT_ANSWERS=maxConcurrent`),
 * and points the fake Slack's event deliveries at the proxy. Undefined without PostgreSQL binaries.
 */
export async function startCluster(options: {
  count: number;
  maxConcurrent: number;
  model: (request: FakeRequest) => Promise<ReturnType<typeof completion>> | ReturnType<typeof completion>;
  /** More environment for every replica (MCP's settings, say). */
  env?: Record<string, string>;
}): Promise<Cluster | undefined> {
  const postgres = await startPostgres();
  if (!postgres) return undefined;
  const [slack, llm] = await Promise.all([startFakeSlack({ repliesPageCap: 200 }), startFakeVendor()]);
  llm.respondWith(options.model);
  const databaseUrl = postgres.newDatabase();
  const key = newKey();
  const spawnReplica = async (): Promise<Replica> => {
    const port = await freePort();
    const bot = runBotProcess(mainEntry, mkdtempSync(resolve(tmpdir(), 'replica-')), {
      PATH: process.env.PATH ?? '',
      SLACK_BOT_TOKEN: 'xoxb-cluster-bot-token',
      SLACK_SIGNING_SECRET: signingSecret,
      SLACK_API_URL: slack.apiUrl,
      PORT: String(port),
      HTTP_HOST: '127.0.0.1',
      OPENAI_API_KEY: 'sk-cluster-test-key-0123',
      OPENAI_BASE_URL: llm.baseURL,
      LLM_MAX_RETRIES: '0',
      MCP_ENABLED: 'false',
      DATABASE_URL: databaseUrl,
      ASSISTANT_ENCRYPTION_KEY: key,
      MAX_CONCURRENT_ANSWERS: String(options.maxConcurrent),
      ...options.env,
    });
    const url = `http://127.0.0.1:${port}`;
    await Promise.race([
      healthIs(url, 200),
      bot.exited.then((code) => {
        throw new Error(`replica exited with ${code}:\n${bot.output()}`);
      }),
    ]);
    return { url, child: bot.child, exited: bot.exited, output: bot.output };
  };
  const replicas: Replica[] = [];
  for (let index = 0; index < options.count; index++) replicas.push(await spawnReplica());
  const targets = replicas.map((replica) => replica.url);
  const proxy = await startRoundRobinProxy(targets);
  slack.deliverOverHttp(`${proxy.url}/slack/events`, signingSecret);
  return {
    postgres,
    databaseUrl,
    key,
    slack,
    llm,
    proxy,
    replicas,
    async restart(index) {
      const replica = await spawnReplica();
      replicas[index] = replica;
      targets[index] = replica.url;
      return replica;
    },
    async close() {
      for (const replica of replicas) if (replica.child.exitCode === null) replica.child.kill('SIGTERM');
      await Promise.all(replicas.map((replica) => replica.exited));
      await Promise.all([proxy.close(), slack.close(), llm.close()]);
      postgres.stop();
    },
  };
}
