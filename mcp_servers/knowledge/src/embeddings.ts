import { createHash } from 'node:crypto';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '@ai-assistant/mcp-server-kit';

/** Where embeddings come from: any OpenAI-compatible `POST {url}/embeddings`. */
export interface EmbeddingSettings {
  /** Base URL, e.g. `http://127.0.0.1:11434/v1` (Ollama), `https://api.openai.com/v1`. */
  url: string;
  model: string;
  apiKey?: string;
  /** Where vectors are kept between runs (default: the user's cache folder). */
  cacheDir: string;
  /** Inputs per request (default 64). */
  batchSize?: number;
  /** One request's deadline (default 30 s). */
  timeoutMs?: number;
}

/** The default cache folder: `$XDG_CACHE_HOME` or `~/.cache`, then this server's own folder. */
export const defaultCacheDir = (env: NodeJS.ProcessEnv) =>
  join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'ai-assistant-knowledge');

/**
 * The widest vector accepted. Text embedding models answer 384 to 4 096 dimensions (OpenAI's
 * text-embedding-3-large 3 072, Qwen3-Embedding-8B 4 096); twice the widest leaves room for the next
 * ones, while one vector still takes at most 32 KB, so a model or endpoint that answers absurdly wide
 * vectors (200 000 dimensions: 800 KB a passage) cannot fill the memory and the cache.
 */
export const maxDimensions = 8192;

/**
 * The largest embeddings answer read for `inputs` texts: 24 bytes a number (a float64 written in JSON,
 * sign, exponent and comma included, takes at most 24) at `maxDimensions`, 1 KB of framing per vector,
 * and 64 KB for the rest. An answer past it is cut off and refused.
 */
export const maxAnswerBytes = (inputs: number) => inputs * (maxDimensions * 24 + 1024) + 64 * 1024;

const hashOf = (model: string, text: string) =>
  createHash('sha256').update(model).update('\u0000').update(text).digest();

/**
 * Passage vectors from an embeddings endpoint, cached on disk by model and passage content (a restart
 * or a changed file embeds only what is new), requested in batches one at a time (a bounded rate). An
 * endpoint that fails or is missing leaves search lexical: one log line, never an exception out.
 * Vectors are Float32Array: 10 000 passages at 1 536 dimensions take about 61 MB. Wider vectors than
 * `maxDimensions`, and answers past `maxAnswerBytes`, are refused like a failing endpoint.
 */
export class Embeddings {
  private readonly vectors = new Map<string, Float32Array>();
  private readonly file: string;
  private loaded: Promise<void> | undefined;
  /** What this run did, for kb://settings. */
  readonly counts = { embeddedThisRun: 0, cacheHits: 0, requests: 0, failures: 0 };
  lastError: string | undefined;

  constructor(
    readonly settings: EmbeddingSettings,
    private readonly logger: Logger,
    private readonly fetchFn: typeof fetch = fetch,
  ) {
    this.file = join(
      settings.cacheDir,
      `${createHash('sha256').update(settings.url).update('\u0000').update(settings.model).digest('hex').slice(0, 32)}.vectors`,
    );
  }

  /** The unit vector of a passage's text, when it has one. */
  vectorOf(text: string): Float32Array | undefined {
    return this.vectors.get(hashOf(this.settings.model, text).toString('hex'));
  }

  /** Makes sure every text has a vector (cached ones are reused); stops at the first failure. */
  async ensure(texts: string[]): Promise<void> {
    await this.load();
    const missing = [...new Set(texts)].filter((text) => !this.vectorOf(text));
    this.counts.cacheHits += texts.length - missing.length;
    const size = this.settings.batchSize ?? 64;
    for (let start = 0; start < missing.length; start += size) {
      const batch = missing.slice(start, start + size);
      const vectors = await this.request(batch);
      if (!vectors) return;
      const records: Buffer[] = [];
      batch.forEach((text, index) => {
        // Kept (and cached) as unit vectors: cosine similarity is then one dot product.
        const vector = normalized(vectors[index] as Float32Array);
        const hash = hashOf(this.settings.model, text);
        this.vectors.set(hash.toString('hex'), vector);
        const header = Buffer.alloc(36);
        hash.copy(header, 0);
        header.writeUInt32LE(vector.length, 32);
        records.push(header, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
      });
      this.counts.embeddedThisRun += batch.length;
      await mkdir(this.settings.cacheDir, { recursive: true });
      await appendFile(this.file, Buffer.concat(records));
    }
  }

  /** A question's vector, or undefined (the search stays lexical). */
  async query(text: string): Promise<Float32Array | undefined> {
    return (await this.request([text]))?.[0];
  }

  private load(): Promise<void> {
    this.loaded ??= readFile(this.file).then(
      (bytes) => {
        for (let at = 0; at + 36 <= bytes.length; ) {
          const hash = bytes.subarray(at, at + 32).toString('hex');
          const length = bytes.readUInt32LE(at + 32);
          const end = at + 36 + length * 4;
          if (end > bytes.length) break; // a record cut short by a crash: the rest is re-embedded
          if (length > maxDimensions) {
            at = end; // kept by an earlier version without the cap: embedded again (and refused)
            continue;
          }
          this.vectors.set(
            hash,
            new Float32Array(bytes.buffer.slice(bytes.byteOffset + at + 36, bytes.byteOffset + end)),
          );
          at = end;
        }
      },
      () => undefined,
    );
    return this.loaded;
  }

  private async request(input: string[]): Promise<Float32Array[] | undefined> {
    this.counts.requests += 1;
    try {
      const response = await this.fetchFn(`${this.settings.url.replace(/\/+$/, '')}/embeddings`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.settings.apiKey ? { authorization: `Bearer ${this.settings.apiKey}` } : {}),
        },
        body: JSON.stringify({ model: this.settings.model, input }),
        signal: AbortSignal.timeout(this.settings.timeoutMs ?? 30_000),
      });
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new Error(`the embeddings endpoint answered HTTP ${response.status}`);
      }
      const body = JSON.parse(await readCapped(response, maxAnswerBytes(input.length))) as {
        data?: Array<{ index?: number; embedding?: unknown }>;
      };
      const data = [...(body.data ?? [])].sort((left, right) => (left.index ?? 0) - (right.index ?? 0));
      if (data.length !== input.length || !data.every((item) => Array.isArray(item.embedding)))
        throw new Error('the embeddings endpoint answered something other than one vector per input');
      const vectors = data.map((item) => item.embedding as unknown[]);
      const wide = vectors.find((vector) => vector.length > maxDimensions);
      if (wide)
        throw new Error(
          `the embeddings endpoint answered vectors of ${wide.length} dimensions; at most ${maxDimensions} are accepted: choose a model (or its dimensions setting) of at most ${maxDimensions}`,
        );
      if (!vectors.every((vector) => vector.length > 0 && vector.every(Number.isFinite)))
        throw new Error(
          'the embeddings endpoint answered a vector that is empty or holds something other than numbers',
        );
      return vectors.map((vector) => Float32Array.from(vector as number[]));
    } catch (error) {
      this.counts.failures += 1;
      const message = error instanceof Error ? error.message : String(error);
      if (this.lastError !== message)
        this.logger.warn('embeddings unavailable; search stays lexical', { error: message.slice(0, 300) });
      this.lastError = message;
      return undefined;
    }
  }
}

/** A response body as text, refused once it passes `max` bytes (the download stops there). */
async function readCapped(response: Response, max: number): Promise<string> {
  const tooLarge = () =>
    new Error(
      `the embeddings endpoint's answer is larger than ${max} bytes; check that the URL is an embeddings API and the model answers at most ${maxDimensions} dimensions`,
    );
  if (Number(response.headers.get('content-length')) > max) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body)
    for await (const chunk of response.body) {
      size += chunk.byteLength;
      if (size > max) throw tooLarge(); // leaving the loop cancels the body
      chunks.push(chunk);
    }
  return Buffer.concat(chunks).toString('utf8');
}

/** A vector scaled to length 1 (a zero vector stays zero): cosine similarity is then a dot product. */
export function normalized(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  const length = Math.sqrt(sum);
  if (length === 0) return new Float32Array(vector.length);
  const unit = new Float32Array(vector.length);
  for (let index = 0; index < vector.length; index++) unit[index] = (vector[index] as number) / length;
  return unit;
}

/** The dot product of two vectors of one length. */
export function dot(left: Float32Array, right: Float32Array): number {
  // Four running sums: fewer loop checks, and independent additions the CPU can overlap.
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  const length = left.length;
  const whole = length - (length % 4);
  let index = 0;
  for (; index < whole; index += 4) {
    a += (left[index] as number) * (right[index] as number);
    b += (left[index + 1] as number) * (right[index + 1] as number);
    c += (left[index + 2] as number) * (right[index + 2] as number);
    d += (left[index + 3] as number) * (right[index + 3] as number);
  }
  for (; index < length; index++) a += (left[index] as number) * (right[index] as number);
  return a + b + c + d;
}
