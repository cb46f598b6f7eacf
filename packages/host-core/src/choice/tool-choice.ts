import type { Message, ToolDefinition } from '@ai-assistant/chat-types';
import { type ToolMatch, type ToolOrigin, ToolSearchIndex } from './tool-search.js';

/** How many tools a request carries. */
export interface ToolChoiceSettings {
  /** A catalog this small is offered whole (`TOOLS_OFFER_ALL_UP_TO`, default 24). */
  offerAllUpTo: number;
  /** At most this many tools are chosen for a question (`TOOLS_OFFERED_MAX`, default 20). */
  offered: number;
  /** At most this many tools one search returns (default 8). */
  found: number;
}

export const defaultToolChoice: ToolChoiceSettings = { offerAllUpTo: 24, offered: 20, found: 8 };

/** A chosen tool scoring below this share of the best one is left for the search tool. */
const relativeFloor = 0.2;
/**
 * A best score below this is a weak match (one common word, or a word of the thread): few tools are
 * offered, and the search tool is there for the rest. A question that needs no tool lands here.
 */
const confidentScore = 6;
const weakOffer = 8;
/** Catalog indexes kept: one per distinct set of servers in use (people and workspaces differ). */
const cachedCatalogs = 8;
/** How many earlier user messages of the thread lend their words (lightly) to the question. */
const threadMessages = 3;

/** The model-facing name of the host's tool search. */
export const findToolsName = 'host__find_tools';

/** The search tool the model is offered when the catalog is larger than what one request carries. */
export function findToolsDefinition(total: number): ToolDefinition {
  return {
    name: findToolsName,
    description:
      `Finds more tools for this request: only a few of the ${total} available tools are offered. Call it when none ` +
      'of the offered tools fits what the user asks. Describe the action and the product in a few words (English ' +
      'works best; any language is understood), e.g. "list open pull requests github". The tools found can be ' +
      'called in the next step.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What the tool should do, in a few words.' },
      },
      required: ['query'],
    },
    hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    needsApproval: false,
  };
}

/**
 * Ranks a catalog by meaning (an embeddings endpoint): each tool's similarity to the question, from -1
 * to 1. Undefined when it cannot (no endpoint, a failure): the choice is then lexical alone, and the
 * person sees no error.
 */
export interface SemanticRanker {
  rank(
    question: string,
    tools: ToolDefinition[],
    originOf?: (name: string) => ToolOrigin | undefined,
  ): Promise<Map<string, number> | undefined>;
}

/** Reciprocal-rank fusion's damping: a tool high in either ranking rises, one high in both rises most. */
const fusionDamping = 60;
/**
 * How far below the closest tool's similarity a tool may be and still be offered: embeddings models put
 * most tools of a catalog in a narrow band, so a fixed threshold would take all or none.
 */
const similarityMargin = 0.1;
/** A semantic similarity this high counts as a confident match, as a lexical `confidentScore` does. */
const confidentSimilarity = 0.5;

/** Why a tool was offered this round. */
export type OfferReason =
  | { kind: 'all' }
  | { kind: 'match'; words: string[]; similarity?: number }
  | { kind: 'used' }
  | { kind: 'found' };

/** One round's offer: the tools, and why each is there. */
export interface ToolOffer {
  tools: ToolDefinition[];
  reasons: Map<string, OfferReason>;
  /** Whether the catalog was larger than the offer (the search tool is then among the tools). */
  narrowed: boolean;
}

/**
 * Chooses, for each question, the few tools of a large catalog that fit it: the index is built once per
 * catalog and reused across turns (a catalog is the same tools in the same order).
 */
export class ToolChooser {
  /** Indexes of the catalogs seen lately, least recently used first. */
  private readonly cached = new Map<string, ToolSearchIndex>();

  constructor(
    readonly settings: ToolChoiceSettings = defaultToolChoice,
    private readonly semantic?: SemanticRanker,
  ) {}

  /** The index of a catalog, built when the catalog changed. */
  index(tools: ToolDefinition[], originOf: (name: string) => ToolOrigin | undefined): ToolSearchIndex {
    const key = catalogKey(tools);
    const index = this.cached.get(key) ?? new ToolSearchIndex(tools, originOf);
    this.cached.delete(key);
    this.cached.set(key, index);
    for (const stale of this.cached.keys()) {
      if (this.cached.size <= cachedCatalogs) break;
      this.cached.delete(stale);
    }
    return index;
  }

  /** Starts one turn's choice over `tools` for the person's question and the thread before it. */
  async turn(input: {
    tools: ToolDefinition[];
    originOf: (name: string) => ToolOrigin | undefined;
    question: string;
    history: Message[];
    used?: readonly string[];
  }): Promise<TurnChoice> {
    const similar =
      this.semantic && input.tools.length > this.settings.offerAllUpTo
        ? await this.semantic.rank(input.question, input.tools, input.originOf).catch(() => undefined)
        : undefined;
    return new TurnChoice(this, input, similar);
  }
}

/** One turn's choice: what each round offers, what the search tool found, what the model called. */
export class TurnChoice {
  private readonly byName: Map<string, ToolDefinition>;
  private readonly index: ToolSearchIndex | undefined;
  private readonly chosen: ToolMatch[];
  private readonly found = new Set<string>();
  private readonly used: Set<string>;

  private readonly tools: ToolDefinition[];

  constructor(
    private readonly chooser: ToolChooser,
    input: {
      tools: ToolDefinition[];
      originOf: (name: string) => ToolOrigin | undefined;
      question: string;
      history: Message[];
      used?: readonly string[];
    },
    similar?: Map<string, number>,
  ) {
    const { tools, originOf, question, history } = input;
    this.tools = tools;
    this.byName = new Map(tools.map((tool) => [tool.name, tool]));
    this.used = new Set((input.used ?? []).filter((name) => this.byName.has(name)));
    const { settings } = chooser;
    if (tools.length <= settings.offerAllUpTo) {
      this.chosen = [];
      return;
    }
    this.index = chooser.index(tools, originOf);
    const thread = history
      .filter((message) => message.role === 'user')
      .slice(-threadMessages)
      .map((message) => message.content)
      .join('\n');
    const query = this.index.query(question, thread);
    if (similar && similar.size > 0) {
      this.chosen = fused(this.index.search(query, tools.length), similar, settings.offered);
      return;
    }
    const ranked = this.index.search(query, settings.offered);
    const best = ranked[0]?.score ?? 0;
    const limit = best >= confidentScore ? settings.offered : Math.min(settings.offered, weakOffer);
    this.chosen = ranked.slice(0, limit).filter((match) => match.score >= best * relativeFloor);
  }

  /** Whether the catalog is larger than one request carries. */
  get narrowed(): boolean {
    return this.index !== undefined;
  }

  /** The tools a definition lookup may find: every tool of the catalog, and the search tool. */
  definition(name: string): ToolDefinition | undefined {
    if (name === findToolsName && this.narrowed) return findToolsDefinition(this.tools.length);
    return this.byName.get(name);
  }

  /** What this round offers: the chosen tools, then those used in the thread and found by search. */
  offer(): ToolOffer {
    const reasons = new Map<string, OfferReason>();
    if (!this.narrowed) {
      for (const tool of this.tools) reasons.set(tool.name, { kind: 'all' });
      return { tools: this.tools, reasons, narrowed: false };
    }
    for (const match of this.chosen)
      reasons.set(match.name, {
        kind: 'match',
        words: match.matched,
        ...(match.similarity !== undefined ? { similarity: match.similarity } : {}),
      });
    for (const name of this.used) if (!reasons.has(name)) reasons.set(name, { kind: 'used' });
    for (const name of this.found) if (!reasons.has(name)) reasons.set(name, { kind: 'found' });
    const tools = [...reasons.keys()].flatMap((name) => this.byName.get(name) ?? []);
    return { tools: [...tools, findToolsDefinition(this.tools.length)], reasons, narrowed: true };
  }

  /** The model called these: they stay offered for the rest of the turn and the thread. */
  called(names: Iterable<string>): void {
    for (const name of names) if (this.byName.has(name)) this.used.add(name);
  }

  /** Tools the model called this turn or earlier in the thread. */
  usedTools(): string[] {
    return [...this.used];
  }

  /** Runs the search tool: the best tools for `query` not yet offered, which the next round offers. */
  find(query: string): { text: string; found: ToolMatch[] } {
    if (!this.index) return { text: 'Every available tool is already offered.', found: [] };
    const offered = new Set(this.offer().reasons.keys());
    const found = this.index.search(this.index.query(query), this.chooser.settings.found, offered);
    for (const match of found) this.found.add(match.name);
    if (found.length === 0)
      return { text: `No other tool matches "${query}". Try other words, or answer without a tool.`, found };
    const lines = found.map((match) => {
      const description = firstSentence(this.byName.get(match.name)?.description ?? '');
      return `- ${match.name}: ${description}`;
    });
    return { text: `Tools found (callable in the next step):\n${lines.join('\n')}`, found };
  }
}

/**
 * The lexical and the semantic rankings fused by reciprocal rank: at most `limit` tools, fewer when
 * neither ranking is confident (a question that needs no tool).
 */
function fused(lexical: ToolMatch[], similar: Map<string, number>, limit: number): ToolMatch[] {
  const scores = new Map<string, { score: number; words: string[]; similarity?: number }>();
  // Each ranking brings only its close seconds: words within `relativeFloor` of the best match, meanings
  // within `similarityMargin` of the closest. A tool both bring rises most.
  const bestScore = lexical[0]?.score ?? 0;
  lexical
    .filter((match) => match.score >= bestScore * relativeFloor)
    .forEach((match, rank) => {
      scores.set(match.name, { score: 1 / (fusionDamping + rank + 1), words: match.matched });
    });
  const ranked = [...similar].sort((left, right) => right[1] - left[1]);
  const closest = ranked[0]?.[1] ?? 0;
  ranked
    .filter(([, similarity]) => similarity > 0 && similarity >= closest - similarityMargin)
    .forEach(([name, similarity], rank) => {
      const entry = scores.get(name) ?? { score: 0, words: [] };
      scores.set(name, { ...entry, score: entry.score + 1 / (fusionDamping + rank + 1), similarity });
    });
  const confident = bestScore >= confidentScore || closest >= confidentSimilarity;
  return [...scores]
    .sort((left, right) => right[1].score - left[1].score)
    .slice(0, confident ? limit : Math.min(limit, weakOffer))
    .map(([name, entry]) => ({
      name,
      score: entry.score,
      matched: entry.words,
      ...(entry.similarity !== undefined ? { similarity: entry.similarity } : {}),
    }));
}

/** Why a tool was offered, in a few words people read (`/tools <words>`, `/assistant tools`). */
export function describeReason(reason: OfferReason | undefined): string {
  if (!reason) return '';
  switch (reason.kind) {
    case 'all':
      return 'the catalog is small: every tool is offered';
    case 'used':
      return 'used earlier in this conversation';
    case 'found':
      return 'found by the tool search';
    case 'match': {
      const words = reason.words.length > 0 ? `words: ${reason.words.join(', ')}` : '';
      const meaning = reason.similarity !== undefined ? `meaning: ${reason.similarity.toFixed(2)}` : '';
      return [words, meaning].filter(Boolean).join('; ');
    }
  }
}

/** A description's first sentence, short enough for a list. */
export function firstSentence(text: string): string {
  const trimmed = text.trim().replace(/\s+/g, ' ');
  const end = trimmed.search(/[.。!?](\s|$)/);
  const sentence = end > 0 ? trimmed.slice(0, end + 1) : trimmed;
  return sentence.length > 160 ? `${sentence.slice(0, 157)}…` : sentence;
}

/** What identifies a catalog: its tools' names and descriptions, in order (cheap to compute per turn). */
function catalogKey(tools: ToolDefinition[]): string {
  let hash = 0x811c9dc5;
  for (const tool of tools) {
    for (const text of [tool.name, tool.description]) {
      for (let index = 0; index < text.length; index++) {
        hash ^= text.charCodeAt(index);
        hash = Math.imul(hash, 0x01000193);
      }
      hash ^= 0x1f;
    }
  }
  return `${tools.length}:${hash >>> 0}`;
}
