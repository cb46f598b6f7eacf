import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { Refused } from './attachment-content.js';

/** How much one PDF may cost to read. */
export interface PdfLimits {
  /** Characters of text kept: the extraction stops there, even in the middle of a page. */
  chars: number;
  /** Bytes its compressed (FlateDecode) streams may inflate to, all together; past it the file is refused. */
  inflatedBytes: number;
}

/** What a test or a log may follow of a worker: it began, refused the file, or was terminated. */
export type PdfWorkerEvent = 'started' | 'refused' | 'terminated';

/** Pages of one PDF read at most. */
const maxPages = 100;
/** The worker's own heap: PDF.js's objects for one document, never the process's. */
const resourceLimits = { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32 };
const unpdfEntry = createRequire(import.meta.url).resolve('unpdf');

// The worker, as CommonJS source (a file of its own would need a build step to run from `src/` in tests).
// First it inflates each FlateDecode stream that is not an image with zlib, within what is left of
// `inflatedBytes` (zlib's maxOutputLength: memory stays bounded), so a small file that inflates hugely is
// refused before PDF.js sees it; then it reads the pages' text as a stream and stops at `chars`.
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const zlib = require('node:zlib');
const { bytes, chars, inflatedBytes, maxPages, unpdf } = workerData;

function inflatesTooMuch() {
  const source = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  let left = inflatedBytes;
  const keyword = /stream\\r?\\n/g;
  for (let match = keyword.exec(source); match; match = keyword.exec(source)) {
    if (source.slice(match.index - 3, match.index) === 'end') continue;
    const start = match.index + match[0].length;
    const end = source.indexOf('endstream', start);
    if (end === -1) break;
    keyword.lastIndex = end + 9;
    const dictionary = source.slice(source.lastIndexOf('obj', match.index), match.index);
    if (!/\\/FlateDecode/.test(dictionary) || /\\/Subtype\\s*\\/Image/.test(dictionary)) continue;
    if (/\\/Filter\\s*\\[\\s*\\/(?!FlateDecode)/.test(dictionary)) continue;
    try {
      left -= zlib.inflateSync(bytes.subarray(start, end), {
        maxOutputLength: left + 1,
        finishFlush: zlib.constants.Z_SYNC_FLUSH,
      }).length;
    } catch (error) {
      if (error && error.code === 'ERR_BUFFER_TOO_LARGE') return true;
    }
    if (left < 0) return true;
  }
  return false;
}

(async () => {
  parentPort.postMessage({ type: 'started' });
  if (inflatesTooMuch()) return parentPort.postMessage({ type: 'refused' });
  const { getDocumentProxy } = require(unpdf);
  const document = await getDocumentProxy(new Uint8Array(bytes));
  let text = '';
  const last = Math.min(document.numPages, maxPages);
  for (let number = 1; number <= last && text.length < chars; number++) {
    if (number > 1) text += '\\n';
    const reader = (await document.getPage(number)).streamTextContent().getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      for (const item of value.items) if ('str' in item) text += item.str + (item.hasEOL ? '\\n' : '');
      if (text.length >= chars) {
        // PDF.js wants an Error as the reason.
        await reader.cancel(new Error('enough text')).catch(() => undefined);
        break;
      }
    }
  }
  parentPort.postMessage({ type: 'text', text: text.slice(0, chars) });
})().catch((error) => parentPort.postMessage({ type: 'failed', message: String(error) }));
`;

const megabytes = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;

/**
 * A PDF's text layer, at most `limits.chars` characters of its first 100 pages, read in a worker thread
 * with a heap of its own: a file whose streams inflate past `limits.inflatedBytes` is refused, and when
 * `signal` aborts (the download's deadline, the answer's) the worker is terminated wherever it is.
 */
export function pdfText(
  bytes: Uint8Array,
  limits: PdfLimits,
  signal: AbortSignal,
  onWorker?: (event: PdfWorkerEvent) => void,
): Promise<string> {
  signal.throwIfAborted();
  const worker = new Worker(workerSource, {
    eval: true,
    workerData: {
      bytes,
      chars: limits.chars,
      inflatedBytes: limits.inflatedBytes,
      maxPages,
      unpdf: unpdfEntry,
    },
    resourceLimits,
  });
  return new Promise<string>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      outcome();
      void worker.terminate();
    };
    const onAbort = () =>
      settle(() => {
        void worker.terminate().then(() => onWorker?.('terminated'));
        reject(new Refused('時間内に読み終わりませんでした'));
      });
    signal.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (message: { type: string; text?: string; message?: string }) => {
      if (message.type === 'started') return onWorker?.('started');
      if (message.type === 'refused') {
        onWorker?.('refused');
        return settle(() =>
          reject(new Refused(`展開すると ${megabytes(limits.inflatedBytes)} を超える PDF は読みません`)),
        );
      }
      if (message.type === 'text') return settle(() => resolve(message.text ?? ''));
      settle(() => reject(new Error(`the PDF could not be read: ${message.message ?? 'unknown error'}`)));
    });
    // ERR_WORKER_OUT_OF_MEMORY: past the worker's heap limit, the worker is gone and the file refused.
    worker.on('error', (error: Error & { code?: string }) =>
      settle(() =>
        reject(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new Refused('読むのに必要なメモリが上限を超えました')
            : error,
        ),
      ),
    );
    worker.on('exit', () => settle(() => reject(new Error('the PDF reader stopped before it answered'))));
  });
}
