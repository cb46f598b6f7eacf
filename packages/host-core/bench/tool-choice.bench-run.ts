import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolDefinition } from '@ai-assistant/chat-types';
import { it } from 'vitest';
import { ToolChooser, type ToolOffer } from '../src/choice/tool-choice.js';
import { fixtures, recordedCatalog } from './recorded-catalog.js';
import { percentile, printTable, verdict } from './table.js';

interface Question {
  id: string;
  lang: 'ja' | 'en';
  question: string;
  tool: string | null;
  also: string[];
  sharesWord: boolean;
}

function questions(file: string): Question[] {
  return JSON.parse(readFileSync(join(fixtures, file), 'utf8')) as Question[];
}

/** Today's choice (before this index): at most 128, by shared words, ties in configuration order. */
function todaysChoice(tools: ToolDefinition[], question: string): ToolDefinition[] {
  const terms = (text: string) => {
    const found = new Set<string>();
    for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
      if (!word) continue;
      if (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(word)) {
        for (let index = 0; index + 2 <= word.length; index++) found.add(word.slice(index, index + 2));
      } else if (word.length > 2) found.add(word);
    }
    return found;
  };
  const asked = terms(question);
  return tools
    .map((tool, index) => {
      const own = terms(`${tool.name.replace(/_/g, ' ')} ${tool.description}`);
      let score = 0;
      for (const term of asked) if (own.has(term)) score++;
      return { tool, index, score };
    })
    .sort((left, right) => right.score - left.score || left.index - right.index)
    .slice(0, 128)
    .map((entry) => entry.tool);
}

interface Outcome {
  question: Question;
  offeredFirst: number;
  offeredDecided: number;
  jsonChars: number;
  hitFirst: boolean;
  hit: boolean;
  todayHit: boolean;
  todayChars: number;
}

/** A scripted model: takes the right tool when offered, else searches once with the question's words. */
async function run(list: Question[], chooser: ToolChooser, catalog: ReturnType<typeof recordedCatalog>) {
  const roundTimes: number[] = [];
  const outcomes: Outcome[] = [];
  const asJson = (tools: ToolDefinition[]) =>
    JSON.stringify(tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })))
      .length;
  for (const question of list) {
    const right = question.tool
      ? [question.tool, ...question.also].map((id) => catalog.ids.get(id) ?? `missing:${id}`)
      : [];
    const started = performance.now();
    const turn = await chooser.turn({
      tools: catalog.tools,
      originOf: (name) => catalog.origins.get(name),
      question: question.question,
      history: [],
    });
    let offer: ToolOffer = turn.offer();
    roundTimes.push(performance.now() - started);
    const first = offer;
    const offeredRight = (current: ToolOffer) => current.tools.some((tool) => right.includes(tool.name));
    if (question.tool && !offeredRight(offer)) {
      turn.find(question.question);
      const again = performance.now();
      offer = turn.offer();
      roundTimes.push(performance.now() - again);
    }
    const today = todaysChoice(catalog.tools, question.question);
    outcomes.push({
      question,
      offeredFirst: first.tools.length,
      offeredDecided: offer.tools.length,
      jsonChars: asJson(offer.tools),
      hitFirst: offeredRight(first),
      hit: offeredRight(offer),
      todayHit: today.some((tool) => right.includes(tool.name)),
      todayChars: asJson(today),
    });
  }
  return { outcomes, roundTimes };
}

const share = (part: Outcome[], test: (outcome: Outcome) => boolean) =>
  part.length === 0 ? Number.NaN : part.filter(test).length / part.length;
const percent = (value: number) => `${(value * 100).toFixed(1)}%`;

it('tool choice over the recorded catalog', async () => {
  const catalog = recordedCatalog();
  const chooser = new ToolChooser();
  // Warm the index once: it is built per catalog, not per question (and timed below separately).
  const built = performance.now();
  chooser.index(catalog.tools, (name) => catalog.origins.get(name));
  const buildMs = performance.now() - built;
  const allChars = JSON.stringify(
    catalog.tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
  ).length;
  // The aims hold for the question set the index was built with; the two later sets measure how far it
  // carries to questions written without seeing it, and are reported without a verdict.
  for (const [label, file] of [
    ['questions', 'tool-questions.json'],
    [
      'second question set (written after the first tuning, seen only after it)',
      'tool-questions-heldout.json',
    ],
    ['held-out questions (never used to tune)', 'tool-questions-heldout2.json'],
  ] as const) {
    let list: Question[];
    try {
      list = questions(file);
    } catch {
      continue;
    }
    const { outcomes, roundTimes } = await run(list, chooser, catalog);
    const needing = outcomes.filter((outcome) => outcome.question.tool);
    const none = outcomes.filter((outcome) => !outcome.question.tool);
    const recall = share(needing, (outcome) => outcome.hit);
    const offered = outcomes.map((outcome) => outcome.offeredDecided);
    const chars = outcomes.map((outcome) => outcome.jsonChars);
    const todayChars = outcomes.map((outcome) => outcome.todayChars);
    const jsonShare = percentile(chars, 0.5) / percentile(todayChars, 0.5);
    const p99 = percentile(roundTimes, 0.99);
    const japanese = needing.filter((outcome) => outcome.question.lang === 'ja');
    const english = needing.filter((outcome) => outcome.question.lang === 'en');
    const unshared = needing.filter((outcome) => !outcome.question.sharesWord);
    const hit = (outcome: Outcome) => outcome.hit;
    const todayHit = (outcome: Outcome) => outcome.todayHit;
    const rate = (part: Outcome[], test: (outcome: Outcome) => boolean) => percent(share(part, test));
    const aimed = file === 'tool-questions.json';
    const judge = (met: boolean) => (aimed ? verdict(met) : 'reported');
    const misses = needing
      .filter((outcome) => !outcome.hit)
      .map((outcome) => `${outcome.question.id} ${outcome.question.question} → ${outcome.question.tool}`);
    printTable(
      `@ai-assistant/host-core tool choice, ${label} (${outcomes.length}; ${catalog.tools.length} recorded tools)`,
      [
        [
          'recall (right tool offered where the model decided)',
          `${percent(recall)} (aim ≥ 95%: ${judge(recall >= 0.95)}); today ${percent(share(needing, (o) => o.todayHit))}`,
        ],
        ['  in the first request, before any search', percent(share(needing, (outcome) => outcome.hitFirst))],
        [
          '  Japanese / English',
          `${rate(japanese, hit)} / ${rate(english, hit)}; today ${rate(japanese, todayHit)} / ${rate(english, todayHit)}`,
        ],
        ['  sharing no word with the tool', `${rate(unshared, hit)}; today ${rate(unshared, todayHit)}`],
        [
          'tools offered, median / p95',
          `${percentile(offered, 0.5)} / ${percentile(offered, 0.95)} (aim ≤ 24 / ≤ 40: ${judge(percentile(offered, 0.5) <= 24 && percentile(offered, 0.95) <= 40)}); today 128`,
        ],
        [
          'tools offered to a question needing none, median / max',
          `${percentile(
            none.map((o) => o.offeredDecided),
            0.5,
          )} / ${Math.max(...none.map((o) => o.offeredDecided))}`,
        ],
        [
          'tools JSON per request, median',
          `${percentile(chars, 0.5)} chars, ${percent(jsonShare)} of today's ${percentile(todayChars, 0.5)} (aim ≤ 20%: ${judge(jsonShare <= 0.2)}); all ${catalog.tools.length}: ${allChars}`,
        ],
        [
          'time the choice adds per round, p50 / p99',
          `${percentile(roundTimes, 0.5).toFixed(3)} / ${p99.toFixed(3)} ms (aim p99 ≤ 5 ms: ${judge(p99 <= 5)}); index built once in ${buildMs.toFixed(1)} ms`,
        ],
      ],
    );
    if (process.env.TOOL_CHOICE_MISSES) process.stdout.write(`${misses.join('\n')}\n`);
  }
});
