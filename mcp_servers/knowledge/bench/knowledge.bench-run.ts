import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'vitest';
import { KnowledgeBase } from '../src/knowledge-base.js';
import { silentLogger } from '../src/log.js';

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
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  process.stdout.write(
    `\n@ai-assistant/mcp-server-knowledge benchmark\n${rows.map(([label, value]) => `| ${label.padEnd(width)} | ${value} |`).join('\n')}\n\n`,
  );
});
