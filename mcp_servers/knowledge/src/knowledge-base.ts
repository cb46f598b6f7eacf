import { type FSWatcher, watch } from 'node:fs';
import type { Logger } from '@ai-assistant/mcp-server-kit';
import MiniSearch from 'minisearch';
import {
  type KnowledgeDocument,
  type LoadOptions,
  loadDocuments,
  type Passage,
  type SkippedFile,
  splitPassages,
} from './documents.js';
import { dot, type Embeddings, normalized } from './embeddings.js';
import { tokenize } from './tokenize.js';

/** Passages indexed between two yields to the event loop while (re)building. */
const indexSlice = 200;

/** One search hit. */
export interface SearchHit {
  documentId: string;
  title: string;
  heading: string;
  excerpt: string;
  score: number;
  /** Why it was found: by its words (BM25), by meaning (embeddings), or both. */
  matched?: 'lexical' | 'semantic' | 'both';
}

/** Reciprocal rank fusion's constant (the customary 60) and how deep each ranking is read. */
const fusionK = 60;
const fusionDepth = 50;

function excerpt(text: string, length = 240): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > length ? `${flat.slice(0, length - 1)}…` : flat;
}

function createIndex(): MiniSearch<Passage> {
  return new MiniSearch<Passage>({
    fields: ['title', 'heading', 'text'],
    storeFields: ['documentId', 'title', 'heading', 'text'],
    tokenize,
    processTerm: (term) => term,
    searchOptions: {
      boost: { title: 2, heading: 1.5 },
      prefix: (term) => term.length > 3 && /^[a-z0-9]/.test(term),
      combineWith: 'OR',
    },
  });
}

/** Documents of one folder, indexed in memory (BM25 via MiniSearch) and rebuilt when files change. */
export class KnowledgeBase {
  private index = createIndex();
  private documents = new Map<string, KnowledgeDocument>();
  private passages = 0;
  private passageList: Passage[] = [];
  private byId = new Map<string, Passage>();
  private byIdOf: Passage[] | undefined;
  private embedded: Promise<void> = Promise.resolve();
  private vectorIndex: Array<{ passage: Passage; vector: Float32Array }> = [];
  /** When the index was last rebuilt (ISO). */
  lastRebuild: string | undefined;
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private building: Promise<void> = Promise.resolve();
  skipped: SkippedFile[] = [];

  constructor(
    readonly folder: string,
    private readonly logger: Logger,
    private readonly options: LoadOptions = {},
    /** Embeddings for hybrid search; without them search is BM25 only. */
    readonly embeddings?: Embeddings,
  ) {}

  /** Resolves once the passages of the last rebuild have vectors (or the endpoint failed). */
  vectorsReady(): Promise<void> {
    return this.building.then(() => this.embedded);
  }

  /** Reads the folder and (re)builds the index; the old index serves until the new one is ready. */
  rebuild(): Promise<void> {
    this.building = this.building.then(async () => {
      const started = performance.now();
      const { documents, skipped } = await loadDocuments(this.folder, this.options);
      const index = createIndex();
      let passages = 0;
      const list: Passage[] = [];
      // Indexed in slices, yielding to the event loop, so searches keep being answered from the old index.
      for (const document of documents) {
        const pieces = splitPassages(document, document.markdown);
        passages += pieces.length;
        list.push(...pieces);
        for (let start = 0; start < pieces.length; start += indexSlice) {
          index.addAll(pieces.slice(start, start + indexSlice));
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      this.index = index;
      this.documents = new Map(documents.map((document) => [document.id, document]));
      this.passages = passages;
      this.passageList = list;
      this.lastRebuild = new Date().toISOString();
      this.skipped = skipped;
      // Vectors are made in the background: the lexical index serves at once.
      if (this.embeddings) {
        const embeddings = this.embeddings;
        this.embedded = embeddings
          .ensure(list.map((passage) => passage.text))
          .catch((error: unknown) => {
            this.logger.warn('embedding the passages failed', { error: String(error) });
          })
          .then(() => {
            // The passages' unit vectors in order (shared with the cache, not copied): one dot product each.
            if (this.passageList !== list) return;
            this.vectorIndex = list.flatMap((passage) => {
              const vector = embeddings.vectorOf(passage.text);
              return vector ? [{ passage, vector }] : [];
            });
          });
      }
      for (const file of skipped) this.logger.warn('file skipped', { file: file.path, reason: file.reason });
      this.logger.info('index built', {
        documents: documents.length,
        passages,
        ms: Math.round(performance.now() - started),
      });
    });
    return this.building;
  }

  /** Watches the folder; changes are debounced, then the index is rebuilt and `onChange` called. */
  watch(onChange: () => void, debounceMs = 300): void {
    this.watcher = watch(this.folder, { recursive: true }, () => {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => {
        this.rebuild().then(onChange, (error: unknown) =>
          this.logger.error('rebuild failed', { error: String(error) }),
        );
      }, debounceMs);
    });
  }

  close(): void {
    clearTimeout(this.timer);
    this.watcher?.close();
  }

  /** The best passages for a query. */
  search(query: string, limit = 4): SearchHit[] {
    return this.index
      .search(query)
      .slice(0, limit)
      .map((hit) => ({
        documentId: hit.documentId as string,
        title: hit.title as string,
        heading: hit.heading as string,
        excerpt: excerpt(hit.text as string),
        score: Math.round(hit.score * 1000) / 1000,
      }));
  }

  /**
   * The best passages for a query by meaning and by words: BM25 and vector (cosine) rankings fused by
   * reciprocal rank, each hit saying how it matched. Without embeddings (or when the question cannot be
   * embedded) it is the BM25 ranking.
   */
  async hybridSearch(query: string, limit = 4): Promise<SearchHit[]> {
    const lexical = this.index.search(query).slice(0, fusionDepth);
    const vector = this.embeddings ? await this.embeddings.query(query) : undefined;
    if (!vector) return this.search(query, limit).map((hit) => ({ ...hit, matched: 'lexical' as const }));
    const question = normalized(vector);
    const scored = nearest(question, this.vectorIndex, fusionDepth);
    const fused = new Map<string, { passage: Passage; score: number; lexical: boolean; semantic: boolean }>();
    const byId = this.passagesById();
    lexical.forEach((hit, rank) => {
      const passage = byId.get(hit.id as string);
      if (passage)
        fused.set(passage.id, { passage, score: 1 / (fusionK + rank + 1), lexical: true, semantic: false });
    });
    scored.forEach(({ passage, similarity }, rank) => {
      if (similarity <= 0) return;
      const entry = fused.get(passage.id) ?? { passage, score: 0, lexical: false, semantic: false };
      entry.score += 1 / (fusionK + rank + 1);
      entry.semantic = true;
      fused.set(passage.id, entry);
    });
    return [...fused.values()]
      .sort((left, right) => right.score - left.score)
      .slice(0, limit)
      .map(({ passage, score, lexical: byWords, semantic }) => ({
        documentId: passage.documentId,
        title: passage.title,
        heading: passage.heading,
        excerpt: excerpt(passage.text),
        score: Math.round(score * 10_000) / 10_000,
        matched: byWords && semantic ? 'both' : semantic ? 'semantic' : 'lexical',
      }));
  }

  /** The passages by id, made once per index (a query looks up only its lexical hits). */
  private passagesById(): Map<string, Passage> {
    if (this.byIdOf !== this.passageList) {
      this.byId = new Map(this.passageList.map((passage) => [passage.id, passage]));
      this.byIdOf = this.passageList;
    }
    return this.byId;
  }

  list(): KnowledgeDocument[] {
    return [...this.documents.values()];
  }

  get(id: string): KnowledgeDocument | undefined {
    return this.documents.get(id) ?? this.documents.get(encodeURIComponent(decodeURIComponent(id)));
  }

  /**
   * How many passages search finds by meaning now: those in the vector index it ranks by, which is
   * built once their vectors are made and cached (a vector made is not yet one searched).
   */
  searchableByMeaning(): number {
    return this.vectorIndex.length;
  }

  stats(): { documents: number; passages: number } {
    return { documents: this.documents.size, passages: this.passages };
  }
}

/**
 * The `depth` passages most similar to the question, best first: one pass keeping a small sorted
 * list, with no object per passage and no sort of the whole index.
 */
function nearest(
  question: Float32Array,
  index: ReadonlyArray<{ passage: Passage; vector: Float32Array }>,
  depth: number,
): Array<{ passage: Passage; similarity: number }> {
  const best: Array<{ passage: Passage; similarity: number }> = [];
  for (const { passage, vector } of index) {
    if (vector.length !== question.length) continue;
    const similarity = dot(question, vector);
    if (best.length === depth && similarity <= (best[depth - 1] as { similarity: number }).similarity)
      continue;
    let at = best.length;
    while (at > 0 && (best[at - 1] as { similarity: number }).similarity < similarity) at--;
    best.splice(at, 0, { passage, similarity });
    if (best.length > depth) best.pop();
  }
  return best;
}
