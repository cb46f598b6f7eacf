import { createHash } from 'node:crypto';
import type { LLMProvider, ToolDefinition } from '@ai-assistant/chat-types';
import { HostError, type Logger, silentLogger } from '@ai-assistant/chat-types';
import type { SemanticRanker } from './tool-choice.js';
import type { ToolOrigin } from './tool-search.js';

/**
 * Where tool vectors outlive the process (the store): keyed by the hash of the embeddings model and the
 * tool's text, so replicas and restarts share them and a changed description is embedded anew.
 */
export interface ToolVectorCache {
  /** The vectors known for these hashes (unknown ones are absent). */
  load(hashes: string[]): Promise<Map<string, number[]>>;
  save(entries: Array<{ hash: string; model: string; vector: number[] }>): Promise<void>;
}

/** What the ranker needs of a provider: its embeddings endpoint and the model behind it. */
export type Embedder = Pick<LLMProvider, 'name' | 'embed' | 'embeddingModel'>;

export interface EmbeddingRankerOptions {
  provider: Embedder;
  cache?: ToolVectorCache;
  logger?: Logger;
  /** Longest a question's own embedding (and any tool vectors it waits for) may hold a turn (3 s). */
  questionTimeoutMs?: number;
  /** Longest embedding a catalog's new tools may take; it goes on after the turn stops waiting (60 s). */
  catalogTimeoutMs?: number;
  /** After a failure, turns choose by words alone this long before the endpoint is tried again (60 s). */
  retryAfterMs?: number;
  now?: () => number;
}

/** The part of a tool's text (and a question) that is embedded: its point, not its examples. */
const maxTextChars = 2000;
/** Vectors kept in memory (a catalog's tools across their description changes). */
const maxVectors = 20_000;

/** The text a tool is embedded by: its server, its name in words, its title and its description. */
export function toolText(tool: ToolDefinition, origin?: ToolOrigin): string {
  const name = (origin?.tool ?? tool.name.replace(/^mcp__/, ''))
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-.]+/g, ' ')
    .trim();
  return [origin?.server, name, origin?.title, tool.description]
    .filter((part): part is string => typeof part === 'string' && part.trim() !== '')
    .join('\n')
    .slice(0, maxTextChars);
}

/** The cache key of a text's vector under an embeddings model. */
export function vectorHash(model: string, text: string): string {
  return createHash('sha256').update(`${model}\n${text}`).digest('hex');
}

function unit(vector: ArrayLike<number>): Float32Array {
  let sum = 0;
  for (let index = 0; index < vector.length; index++) sum += (vector[index] ?? 0) ** 2;
  const norm = Math.sqrt(sum) || 1;
  return Float32Array.from(vector, (value) => value / norm);
}

function dot(left: Float32Array, right: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < left.length; index++) sum += (left[index] ?? 0) * (right[index] ?? 0);
  return sum;
}

/** The tools' vectors are still being computed: not a failure, this turn just does without them. */
class StillEmbedding extends HostError {
  constructor() {
    super('EMBEDDINGS_PENDING', 'the tools’ vectors are still being computed');
  }
}

/**
 * Ranks tools by meaning with the provider's embeddings endpoint: cosine similarity between the question
 * and each tool's text. Tool vectors are computed once per (model, text), kept in memory and in the
 * injected cache. Whatever fails or is slow yields undefined (the choice is then by words alone): one
 * warning per outage, never an error to the person.
 */
export class EmbeddingRanker implements SemanticRanker {
  private readonly vectors = new Map<string, Float32Array>();
  private readonly pending = new Map<string, Promise<void>>();
  private readonly logger: Logger;
  private readonly model: string;
  private readonly embed: NonNullable<Embedder['embed']>;
  private pausedUntil = 0;
  private failing = false;

  constructor(private readonly options: EmbeddingRankerOptions) {
    const { embed, embeddingModel } = options.provider;
    if (!embed || !embeddingModel)
      throw new Error(`provider ${options.provider.name} has no embeddings: set EMBEDDINGS_MODEL`);
    this.embed = embed.bind(options.provider);
    this.model = embeddingModel;
    this.logger = options.logger ?? silentLogger;
  }

  async rank(
    question: string,
    tools: ToolDefinition[],
    originOf?: (name: string) => ToolOrigin | undefined,
  ): Promise<Map<string, number> | undefined> {
    const now = this.options.now ?? Date.now;
    const text = question.trim().slice(0, maxTextChars);
    if (text === '' || tools.length === 0 || now() < this.pausedUntil) return undefined;
    const texts = tools.map((tool) => toolText(tool, originOf?.(tool.name)));
    const hashes = texts.map((toolTextValue) => vectorHash(this.model, toolTextValue));
    const deadline = AbortSignal.timeout(this.options.questionTimeoutMs ?? 3000);
    try {
      const [asked, toolVectors] = await Promise.all([
        this.embed([text], { signal: deadline }),
        this.toolVectors(hashes, texts, deadline),
      ]);
      const questionVector = unit(asked[0] ?? []);
      const similar = new Map<string, number>();
      tools.forEach((tool, index) => {
        const vector = toolVectors[index] as Float32Array;
        if (vector.length !== questionVector.length)
          throw new Error(
            `the embeddings model ${this.model} returned vectors of ${questionVector.length} and ${vector.length} dimensions`,
          );
        similar.set(tool.name, dot(questionVector, vector));
      });
      if (this.failing) {
        this.failing = false;
        this.logger.info(
          { provider: this.options.provider.name, model: this.model },
          'embeddings answer again',
        );
      }
      return similar;
    } catch (error) {
      if (error instanceof StillEmbedding) {
        this.logger.debug({ tools: tools.length }, 'tool vectors not ready yet: this turn chooses by words');
        return undefined;
      }
      this.failed(error);
      return undefined;
    }
  }

  /**
   * Loads or computes these tools' vectors ahead of the questions (an app that knows its catalog at
   * start); resolves when they are ready or could not be had, never rejects.
   */
  async prepare(tools: ToolDefinition[], originOf?: (name: string) => ToolOrigin | undefined): Promise<void> {
    const now = this.options.now ?? Date.now;
    if (tools.length === 0 || now() < this.pausedUntil) return;
    const texts = tools.map((tool) => toolText(tool, originOf?.(tool.name)));
    await Promise.all(
      this.pendingFor(
        texts.map((text) => vectorHash(this.model, text)),
        texts,
      ),
    );
  }

  /** The jobs that bring these tools' vectors into memory, started for those no job is fetching yet. */
  private pendingFor(hashes: string[], texts: string[]): Set<Promise<void>> {
    const missing = hashes.flatMap((hash, index) =>
      this.vectors.has(hash) || this.pending.has(hash) ? [] : [index],
    );
    if (missing.length > 0) {
      // Started on the next tick, so the job is registered before its `finally` can remove it.
      const job = Promise.resolve().then(() =>
        this.fill(
          missing.map((index) => hashes[index] as string),
          missing.map((index) => texts[index] as string),
        ),
      );
      for (const index of missing) this.pending.set(hashes[index] as string, job);
    }
    return new Set(hashes.flatMap((hash) => this.pending.get(hash) ?? []));
  }

  /** Each tool's vector, from memory, the cache or the endpoint; rejects when one cannot be had in time. */
  private async toolVectors(
    hashes: string[],
    texts: string[],
    deadline: AbortSignal,
  ): Promise<Float32Array[]> {
    const waits = this.pendingFor(hashes, texts);
    if (waits.size > 0) {
      let stop: (() => void) | undefined;
      const stopped = new Promise<'stopped'>((resolve) => {
        stop = () => resolve('stopped');
        deadline.addEventListener('abort', stop, { once: true });
      });
      const outcome = await Promise.race([Promise.all(waits), stopped]);
      if (stop) deadline.removeEventListener('abort', stop);
      if (outcome === 'stopped') throw new StillEmbedding();
    }
    return hashes.map((hash) => {
      const vector = this.vectors.get(hash);
      if (!vector) throw new Error('tool vectors could not be computed');
      return vector;
    });
  }

  /** Loads what the cache has, embeds the rest and saves it; never rejects (a failure is logged). */
  private async fill(hashes: string[], texts: string[]): Promise<void> {
    const { cache } = this.options;
    try {
      if (cache) {
        try {
          for (const [hash, vector] of await cache.load(hashes)) this.remember(hash, vector);
        } catch (error) {
          this.logger.warn(
            { error: String(error) },
            'tool vectors could not be read from the store: embedding them',
          );
        }
      }
      const absent = hashes.flatMap((hash, index) => (this.vectors.has(hash) ? [] : [index]));
      if (absent.length === 0) return;
      const embedded = await this.embed(
        absent.map((index) => texts[index] as string),
        { signal: AbortSignal.timeout(this.options.catalogTimeoutMs ?? 60_000) },
      );
      const entries = absent.map((index, position) => ({
        hash: hashes[index] as string,
        model: this.model,
        vector: embedded[position] ?? [],
      }));
      for (const entry of entries) this.remember(entry.hash, entry.vector);
      this.logger.debug({ tools: entries.length, model: this.model }, 'tools embedded');
      if (cache)
        await cache.save(entries).catch((error: unknown) => {
          this.logger.warn({ error: String(error) }, 'tool vectors could not be saved in the store');
        });
    } catch (error) {
      this.failed(error);
    } finally {
      for (const hash of hashes) this.pending.delete(hash);
    }
  }

  private remember(hash: string, vector: number[]): void {
    if (vector.length === 0) return;
    if (this.vectors.size >= maxVectors) {
      const oldest = this.vectors.keys().next().value;
      if (oldest !== undefined) this.vectors.delete(oldest);
    }
    this.vectors.set(hash, unit(vector));
  }

  /** One warning per outage; the endpoint rests a while so a down endpoint costs turns no time. */
  private failed(error: unknown): void {
    const now = this.options.now ?? Date.now;
    this.pausedUntil = now() + (this.options.retryAfterMs ?? 60_000);
    const fields = {
      provider: this.options.provider.name,
      model: this.model,
      error: error instanceof Error ? error.message : String(error),
    };
    if (this.failing) {
      this.logger.debug(fields, 'embeddings still failing: tools chosen by words');
      return;
    }
    this.failing = true;
    this.logger.warn(fields, 'embeddings failed: tools are chosen by words alone until they answer again');
  }
}

/** A ranker over the provider's embeddings, or undefined when it has none (the choice is then by words). */
export function embeddingRanker(
  provider: LLMProvider,
  options: Omit<EmbeddingRankerOptions, 'provider'> = {},
): EmbeddingRanker | undefined {
  return provider.embed && provider.embeddingModel
    ? new EmbeddingRanker({ provider, ...options })
    : undefined;
}
