import { type FSWatcher, watch } from 'node:fs';
import MiniSearch from 'minisearch';
import {
  type KnowledgeDocument,
  type LoadOptions,
  loadDocuments,
  type Passage,
  type SkippedFile,
  splitPassages,
} from './documents.js';
import type { Logger } from './log.js';
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
}

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
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private building: Promise<void> = Promise.resolve();
  skipped: SkippedFile[] = [];

  constructor(
    readonly folder: string,
    private readonly logger: Logger,
    private readonly options: LoadOptions = {},
  ) {}

  /** Reads the folder and (re)builds the index; the old index serves until the new one is ready. */
  rebuild(): Promise<void> {
    this.building = this.building.then(async () => {
      const started = performance.now();
      const { documents, skipped } = await loadDocuments(this.folder, this.options);
      const index = createIndex();
      let passages = 0;
      // Indexed in slices, yielding to the event loop, so searches keep being answered from the old index.
      for (const document of documents) {
        const pieces = splitPassages(document, document.markdown);
        passages += pieces.length;
        for (let start = 0; start < pieces.length; start += indexSlice) {
          index.addAll(pieces.slice(start, start + indexSlice));
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      this.index = index;
      this.documents = new Map(documents.map((document) => [document.id, document]));
      this.passages = passages;
      this.skipped = skipped;
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

  list(): KnowledgeDocument[] {
    return [...this.documents.values()];
  }

  get(id: string): KnowledgeDocument | undefined {
    return this.documents.get(id) ?? this.documents.get(encodeURIComponent(decodeURIComponent(id)));
  }

  stats(): { documents: number; passages: number } {
    return { documents: this.documents.size, passages: this.passages };
  }
}
