import type { ToolDefinition } from '@ai-assistant/chat-types';
import { isLoanword, soundSkeleton, terms, vocabularyTerms } from './words.js';

/** What the index reads of one tool besides its definition: the server it belongs to and its own name. */
export interface ToolOrigin {
  server?: string;
  /** The tool's name on its server (the definition's name is the model-facing `mcp__server__tool`). */
  tool?: string;
  /** The tool's title, when its server gives one. */
  title?: string;
}

/** One tool the index found, with the words that matched (the reason it was found). */
export interface ToolMatch {
  name: string;
  score: number;
  matched: string[];
  /** Its similarity to the question by meaning, when an embeddings endpoint ranked it. */
  similarity?: number;
}

/** How much a word counts in each field of a tool (BM25F): its name and server say most. */
const fieldWeights = { name: 3, server: 2.5, title: 2, description: 1, parameters: 0.6 } as const;
type Field = keyof typeof fieldWeights;
const fields = Object.keys(fieldWeights) as Field[];
const k1 = 1.2;
const b = 0.75;

/** How much a query word counts: the question's own words, the vocabulary's, and the thread's before it. */
export const queryWeights = { question: 1, vocabulary: 0.7, sound: 0.6, thread: 0.3 } as const;

/** A description's first part: long descriptions repeat their point and drown it in examples. */
const descriptionChars = 1200;

function parameterText(definition: ToolDefinition): string {
  const properties = (definition.inputSchema as { properties?: Record<string, unknown> }).properties;
  return properties && typeof properties === 'object' ? Object.keys(properties).join(' ') : '';
}

/**
 * A BM25F index over a catalog of tools, built once per catalog: for each word, the tools that hold it
 * and how strongly (each field's count, weighted and normalised by the field's length).
 */
export class ToolSearchIndex {
  private readonly postings = new Map<string, Array<{ tool: number; weight: number }>>();
  private readonly count: number;
  /** The index's English words by their sound skeleton, for katakana loanwords. */
  private readonly sounds = new Map<string, string[]>();
  readonly names: string[];

  constructor(tools: ToolDefinition[], originOf: (name: string) => ToolOrigin | undefined) {
    this.names = tools.map((tool) => tool.name);
    this.count = tools.length;
    const documents = tools.map((definition) => {
      const origin = originOf(definition.name) ?? {};
      const text: Record<Field, string> = {
        name: origin.tool ?? definition.name,
        server: origin.server ?? '',
        title: origin.title ?? '',
        description: definition.description.slice(0, descriptionChars),
        parameters: parameterText(definition),
      };
      return Object.fromEntries(fields.map((field) => [field, terms(text[field])])) as Record<
        Field,
        string[]
      >;
    });
    const averages = Object.fromEntries(
      fields.map((field) => [
        field,
        Math.max(
          1,
          documents.reduce((sum, document) => sum + document[field].length, 0) / (documents.length || 1),
        ),
      ]),
    ) as Record<Field, number>;
    documents.forEach((document, tool) => {
      const weights = new Map<string, number>();
      for (const field of fields) {
        const norm = 1 - b + (b * document[field].length) / averages[field];
        const counts = new Map<string, number>();
        for (const term of document[field]) counts.set(term, (counts.get(term) ?? 0) + 1);
        for (const [term, count] of counts)
          weights.set(term, (weights.get(term) ?? 0) + (fieldWeights[field] * count) / norm);
      }
      for (const [term, weight] of weights) {
        const list = this.postings.get(term) ?? [];
        list.push({ tool, weight });
        this.postings.set(term, list);
      }
    });
    for (const term of this.postings.keys()) {
      if (!/^[a-z]{4,}$/.test(term)) continue;
      const sound = soundSkeleton(term);
      if (sound.length >= 3) this.sounds.set(sound, [...(this.sounds.get(sound) ?? []), term]);
    }
  }

  /**
   * The index's English words a katakana loanword sounds like: the same skeleton, or one that is the
   * loanword's less up to two sounds (the index keeps stems: `target` for `ターゲティング`).
   */
  private soundsLike(word: string): string[] {
    const sound = soundSkeleton(word);
    if (sound.length < 3) return [];
    const found: string[] = [];
    for (let cut = sound.length; cut >= Math.max(3, sound.length - 2); cut--)
      found.push(...(this.sounds.get(sound.slice(0, cut)) ?? []));
    return found;
  }

  /** The weighted words of a query: the question's, the vocabulary's for it, and (lightly) the thread's. */
  query(question: string, thread = ''): Map<string, number> {
    const weights = new Map<string, number>();
    const add = (words: string[], weight: number) => {
      for (const word of words) weights.set(word, Math.max(weights.get(word) ?? 0, weight));
    };
    const words = (text: string, weight: number) => {
      const own = terms(text);
      add(
        own.filter(isLoanword).flatMap((word) => this.soundsLike(word)),
        weight * queryWeights.sound,
      );
      add(vocabularyTerms(text), weight * queryWeights.vocabulary);
      add(own, weight);
    };
    if (thread) words(thread, queryWeights.thread);
    words(question, queryWeights.question);
    return weights;
  }

  /** Tools ranked by how well they fit the query, best first; ties keep the catalog's order. */
  search(query: Map<string, number>, limit: number, exclude: ReadonlySet<string> = new Set()): ToolMatch[] {
    const scores = new Float64Array(this.count);
    const matched = new Map<number, string[]>();
    for (const [term, queryWeight] of query) {
      const list = this.postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (this.count - list.length + 0.5) / (list.length + 0.5));
      for (const { tool, weight } of list) {
        scores[tool] = (scores[tool] ?? 0) + queryWeight * idf * ((weight * (k1 + 1)) / (weight + k1));
        const words = matched.get(tool) ?? [];
        words.push(term);
        matched.set(tool, words);
      }
    }
    const found: Array<{ tool: number; score: number; words: string[] }> = [];
    for (const [tool, words] of matched)
      if (!exclude.has(this.names[tool] as string)) found.push({ tool, score: scores[tool] ?? 0, words });
    found.sort((left, right) => right.score - left.score || left.tool - right.tool);
    return found
      .slice(0, limit)
      .map((entry) => ({ name: this.names[entry.tool] as string, score: entry.score, matched: entry.words }));
  }
}
