import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Embeddings } from '../src/embeddings.js';
import { KnowledgeBase } from '../src/knowledge-base.js';

const entry = resolve(import.meta.dirname, '..', 'dist', 'index.js');
const apiKey = 'embeddings-key-0123456789';

/** Concepts the fake model "understands": a text's vector has a 1 on each concept it mentions. */
const concepts = [
  ['vacation', 'leave', 'holiday', '休暇', '有給'],
  ['expense', 'receipt', 'reimburse', '経費', '精算'],
  ['deploy', 'release', 'rollback', 'デプロイ'],
  ['started', 'joining', 'new hire', 'just joined', '入社'],
];
/** Models the fake endpoint serves besides the concepts: absurdly wide vectors, or a padded answer. */
const wideDimensions = 200_000;
const paddingBytes = 4 * 1024 * 1024;
const quiet = { info() {}, warn() {}, error() {} };
const vectorOf = (text: string) => {
  const lower = text.toLowerCase();
  return [...concepts.map((words) => (words.some((word) => lower.includes(word)) ? 1 : 0)), 0.01];
};

describe('knowledge server: hybrid search through an OpenAI-compatible embeddings endpoint', () => {
  let folder: string;
  let cacheDir: string;
  let endpoint: Server;
  let base: string;
  const inputs: string[] = [];
  let failing = false;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'kb-hybrid-'));
    cacheDir = mkdtempSync(join(tmpdir(), 'kb-cache-'));
    writeFileSync(
      join(folder, 'leave.md'),
      '# 年次有給休暇\n\n年次有給休暇は入社六か月後に十日付与されます。\n',
    );
    writeFileSync(join(folder, 'expenses.md'), '# Expenses\n\nFile expense receipts within thirty days.\n');
    writeFileSync(join(folder, 'deploy.md'), '# Deploy\n\nRun the pipeline, then check the dashboard.\n');
    endpoint = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        if (
          failing ||
          request.headers.authorization !== `Bearer ${apiKey}` ||
          request.url !== '/v1/embeddings'
        ) {
          response.writeHead(failing ? 500 : 401, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ error: { message: 'no' } }));
          return;
        }
        const { input, model } = JSON.parse(body) as { input: string[]; model: string };
        inputs.push(...input);
        response.writeHead(200, { 'content-type': 'application/json' });
        const embedding = (text: string) =>
          model === 'wide-1'
            ? new Array<number>(wideDimensions).fill(0.5)
            : model === 'wide-8193'
              ? new Array<number>(8193).fill(1)
              : vectorOf(text);
        response.end(
          JSON.stringify({
            object: 'list',
            model,
            data: input.map((text, index) => ({ object: 'embedding', index, embedding: embedding(text) })),
            usage: { prompt_tokens: input.length, total_tokens: input.length },
            ...(model === 'padded-1' ? { padding: ' '.repeat(paddingBytes) } : {}),
          }),
        );
      });
    });
    await new Promise<void>((done) => endpoint.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    await new Promise<void>((done) => endpoint.close(() => done()));
    rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
    rmSync(cacheDir, { recursive: true, force: true, maxRetries: 5 });
  });

  async function start(env: Record<string, string>) {
    const client = new Client({ name: 'kb-hybrid', version: '0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [entry, '--docs', folder],
        env: { PATH: process.env.PATH ?? '', KNOWLEDGE_CACHE_DIR: cacheDir, ...env },
        stderr: 'ignore',
      }),
    );
    return client;
  }
  const withEmbeddings = () =>
    start({
      KNOWLEDGE_EMBEDDINGS_URL: base,
      KNOWLEDGE_EMBEDDINGS_MODEL: 'concepts-1',
      KNOWLEDGE_EMBEDDINGS_API_KEY: apiKey,
    });
  const settings = async (client: Client) =>
    JSON.parse(
      ((await client.readResource({ uri: 'kb://settings' })).contents[0] as { text: string }).text,
    ) as {
      passages: number;
      search: string;
      embeddings: null | {
        embeddedPassages: number;
        embeddedThisRun: number;
        cacheHits: number;
        lastError?: string;
        endpoint: string;
      };
    };
  /** Waits (bounded) until every passage has a vector. */
  async function embedded(client: Client) {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const now = await settings(client);
      if (now.embeddings && now.embeddings.embeddedPassages === now.passages) return now;
      if (Date.now() > deadline) throw new Error(`not embedded: ${JSON.stringify(now)}`);
      await new Promise((done) => setTimeout(done, 50));
    }
  }
  const search = async (client: Client, query: string) =>
    (
      (
        (await client.callTool({
          name: 'search_knowledge',
          arguments: { query, limit: 3 },
        })) as CallToolResult
      ).structuredContent as { results: Array<{ uri: string; matched: string; score: number }> }
    ).results;

  it('a question sharing no word with its passage is found by meaning, and missed by BM25 alone', async () => {
    const question = 'vacation days for someone who just started';
    const lexicalOnly = await start({});
    expect((await search(lexicalOnly, question)).map((hit) => hit.uri)).not.toContain(
      'kb://documents/leave.md',
    );
    await lexicalOnly.close();

    const hybrid = await withEmbeddings();
    const ready = await embedded(hybrid);
    expect(ready.search).toMatch(/^hybrid/);
    const hits = await search(hybrid, question);
    // Found by meaning only (its words are Japanese); "days" also finds the expenses passage by its words.
    expect(hits.find((hit) => hit.uri === 'kb://documents/leave.md')?.matched).toBe('semantic');
    expect(hits.find((hit) => hit.uri === 'kb://documents/expenses.md')?.matched).toMatch(/^(lexical|both)$/);
    const both = await search(hybrid, 'deploy pipeline');
    expect(both[0]).toMatchObject({ uri: 'kb://documents/deploy.md', matched: 'both' });
    await hybrid.close();
  });

  it('a restart embeds nothing unchanged; a changed file re-embeds only its passages', async () => {
    const first = await withEmbeddings();
    await embedded(first);
    await first.close();
    const before = inputs.length;
    const again = await withEmbeddings();
    const ready = await embedded(again);
    expect(ready.embeddings).toMatchObject({ embeddedThisRun: 0, cacheHits: ready.passages });
    await again.close();
    expect(inputs.length - before).toBe(0);

    writeFileSync(
      join(folder, 'deploy.md'),
      '# Deploy\n\nRun the pipeline, then watch the release dashboard.\n',
    );
    const changed = await withEmbeddings();
    const after = await embedded(changed);
    expect(after.embeddings?.embeddedThisRun).toBe(1);
    await changed.close();
  });

  it('an endpoint that fails leaves search lexical, says so in the settings, and shows no key', async () => {
    failing = true;
    try {
      const client = await start({
        KNOWLEDGE_EMBEDDINGS_URL: base,
        KNOWLEDGE_EMBEDDINGS_MODEL: 'another-model',
        KNOWLEDGE_EMBEDDINGS_API_KEY: apiKey,
      });
      const hits = await search(client, 'expense receipts');
      expect(hits[0]).toMatchObject({ uri: 'kb://documents/expenses.md', matched: 'lexical' });
      const now = await settings(client);
      expect(now.embeddings?.lastError).toMatch(/HTTP 500/);
      expect(now.embeddings?.endpoint).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(JSON.stringify(now)).not.toContain(apiKey);
      await client.close();
    } finally {
      failing = false;
    }
  });

  it('#43.23 vectors over 8,192 dimensions, or an answer past its size cap, are refused and search stays lexical', async () => {
    for (const [model, reason] of [
      // 200 000 dimensions: past the answer's size cap before a vector is even counted.
      ['wide-1', /answer is larger than \d+ bytes; .* at most 8192 dimensions/],
      ['wide-8193', /vectors of 8193 dimensions; at most 8192 are accepted/],
      ['padded-1', /answer is larger than \d+ bytes/],
    ] as const) {
      const cache = mkdtempSync(join(tmpdir(), 'kb-cache-'));
      try {
        const embeddings = new Embeddings({ url: base, model, apiKey, cacheDir: cache }, quiet);
        const knowledge = new KnowledgeBase(folder, quiet, {}, embeddings);
        await knowledge.rebuild();
        await knowledge.vectorsReady();
        const cached = readdirSync(cache).reduce((sum, file) => sum + statSync(join(cache, file)).size, 0);
        expect({ model, cached, searchable: knowledge.searchableByMeaning() }).toEqual({
          model,
          cached: 0,
          searchable: 0,
        });
        expect(embeddings.lastError).toMatch(reason);
        const hits = await knowledge.hybridSearch('expense receipts');
        expect(hits[0]).toMatchObject({ documentId: 'expenses.md', matched: 'lexical' });
      } finally {
        rmSync(cache, { recursive: true, force: true, maxRetries: 5 });
      }
    }
  });
});
