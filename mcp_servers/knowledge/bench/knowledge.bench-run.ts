import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@ai-assistant/mcp-server-kit';
import { it } from 'vitest';
import { Embeddings } from '../src/embeddings.js';
import { KnowledgeBase } from '../src/knowledge-base.js';

const english = [
  'deploy',
  'release',
  'rollback',
  'pipeline',
  'dashboard',
  'incident',
  'latency',
  'database',
  'backup',
  'token',
  'invoice',
  'laptop',
];
const japanese = [
  '休暇',
  '申請',
  '承認',
  '経費',
  '精算',
  '会議室',
  '予約',
  '障害',
  '対応',
  '手順',
  '天気',
  '出張',
];

function percentile(samples: number[], fraction: number): number {
  const sorted = [...samples].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

it('knowledge base benchmark: 10 000 passages', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'kb-bench-'));
  let seed = 42;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)] as T;
  // 500 documents × 20 sections = 10 000 passages, half Japanese, half English.
  for (let document = 0; document < 500; document++) {
    mkdirSync(join(folder, `team${document % 10}`), { recursive: true });
    const sections = Array.from({ length: 20 }, (_, section) => {
      const words = document % 2 === 0 ? english : japanese;
      const joiner = document % 2 === 0 ? ' ' : '';
      const sentence = () => Array.from({ length: 12 }, () => pick(words)).join(joiner);
      return `## Section ${section}\n${sentence()}. ${sentence()}. ${sentence()}.`;
    });
    writeFileSync(
      join(folder, `team${document % 10}`, `doc${document}.md`),
      `# Document ${document}\n\n${sections.join('\n\n')}\n`,
    );
  }
  const knowledge = new KnowledgeBase(folder, silentLogger);
  const before = process.memoryUsage();
  let started = performance.now();
  await knowledge.rebuild();
  const buildMs = performance.now() - started;
  const after = process.memoryUsage();
  const queries = Array.from({ length: 200 }, (_, index) =>
    index % 2 === 0 ? `${pick(english)} ${pick(english)}` : `${pick(japanese)}の${pick(japanese)}`,
  );
  for (const query of queries.slice(0, 20)) knowledge.search(query);
  const samples: number[] = [];
  for (const query of queries) {
    started = performance.now();
    knowledge.search(query, 4);
    samples.push(performance.now() - started);
  }
  // Hybrid: 1 536-dimension vectors from an in-process endpoint (its time is not the search's).
  const dimensions = 1536;
  const fakeEndpoint = (async (_url: string, init: { body: string }) => {
    const { input } = JSON.parse(init.body) as { input: string[] };
    return new Response(
      JSON.stringify({
        data: input.map((_text, index) => ({
          index,
          embedding: Array.from({ length: dimensions }, () => random() - 0.5),
        })),
      }),
      { headers: { 'content-type': 'application/json' } },
    );
  }) as unknown as typeof fetch;
  const cacheDir = mkdtempSync(join(tmpdir(), 'kb-bench-cache-'));
  const settings = { url: 'http://embeddings.invalid/v1', model: 'bench-1536', cacheDir };
  const hybrid = new KnowledgeBase(
    folder,
    silentLogger,
    {},
    new Embeddings(settings, silentLogger, fakeEndpoint),
  );
  await hybrid.rebuild();
  await hybrid.vectorsReady();
  // The question's own embedding is made outside the timed part: the endpoint's time is excluded.
  const questionVectors = new Map<string, Float32Array>();
  const timedEmbeddings = hybrid.embeddings as Embeddings;
  const original = timedEmbeddings.query.bind(timedEmbeddings);
  for (const query of queries) questionVectors.set(query, (await original(query)) as Float32Array);
  timedEmbeddings.query = async (text: string) => questionVectors.get(text);
  for (const query of queries.slice(0, 20)) await hybrid.hybridSearch(query);
  const hybridSamples: number[] = [];
  for (const query of queries) {
    started = performance.now();
    await hybrid.hybridSearch(query, 4);
    hybridSamples.push(performance.now() - started);
  }
  // A full rebuild on a fresh process's view of the cache: every vector read back, none requested.
  const rebuilt = new KnowledgeBase(
    folder,
    silentLogger,
    {},
    new Embeddings(settings, silentLogger, fakeEndpoint),
  );
  started = performance.now();
  await rebuilt.rebuild();
  await rebuilt.vectorsReady();
  const rebuildMs = performance.now() - started;
  const embeddedAgain = (rebuilt.embeddings as Embeddings).counts.embeddedThisRun;
  const hybridRss = process.memoryUsage().rss;
  rmSync(cacheDir, { recursive: true, force: true });
  rmSync(folder, { recursive: true, force: true });
  const rows: Array<[string, string]> = [
    ['documents / passages indexed', `${knowledge.stats().documents} / ${knowledge.stats().passages}`],
    ['index build (read + split + index)', `${buildMs.toFixed(0)} ms`],
    [
      'search p50 / p99 (200 queries, JA and EN)',
      `${percentile(samples, 0.5).toFixed(2)} / ${percentile(samples, 0.99).toFixed(2)} ms`,
    ],
    [
      'heap growth for the index / process RSS',
      `${((after.heapUsed - before.heapUsed) / 1024 / 1024).toFixed(1)} / ${(after.rss / 1024 / 1024).toFixed(1)} MiB`,
    ],
    [
      'hybrid search p50 / p99 (1 536 dims, question embedding excluded; aim p99 < 50 ms)',
      `${percentile(hybridSamples, 0.5).toFixed(2)} / ${percentile(hybridSamples, 0.99).toFixed(2)} ms ${percentile(hybridSamples, 0.99) < 50 ? 'met' : 'MISSED'}`,
    ],
    [
      'full rebuild with cached vectors (passages embedded again)',
      `${rebuildMs.toFixed(0)} ms (${embeddedAgain})`,
    ],
    [
      'process RSS with two hybrid bases of 10 000 vectors each',
      `${(hybridRss / 1024 / 1024).toFixed(1)} MiB`,
    ],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  process.stdout.write(
    `\n@ai-assistant/mcp-server-knowledge benchmark\n${rows.map(([label, value]) => `| ${label.padEnd(width)} | ${value} |`).join('\n')}\n\n`,
  );
});
