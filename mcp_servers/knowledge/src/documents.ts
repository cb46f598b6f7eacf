import { constants } from 'node:fs';
import { type FileHandle, open, readdir, realpath, stat } from 'node:fs/promises';
import { basename, extname, join, relative, sep } from 'node:path';
import { type Extracted, extract, formats, isIndexed } from './formats.js';

/** One indexed document. */
export interface KnowledgeDocument {
  /** URL-safe id: the path relative to the folder, encoded. */
  id: string;
  path: string;
  title: string;
  text: string;
  size: number;
  updated: string;
  /** Markdown keeps its headings for passages; HTML, PDF, DOCX and text are plain text. */
  markdown: boolean;
  mimeType: string;
}

/** A searchable piece of a document: one section or a group of its paragraphs. */
export interface Passage {
  id: string;
  documentId: string;
  title: string;
  /** Heading path, e.g. "Setup › Slack". */
  heading: string;
  text: string;
}

/** A file that was not indexed, and why. */
export interface SkippedFile {
  path: string;
  reason: string;
}

const maxPassage = 1200;

/** The id of a document from its path relative to the folder. */
export function documentId(relativePath: string): string {
  return encodeURIComponent(relativePath.split(sep).join('/'));
}

/** Splits a document at headings, then long sections at paragraphs, keeping title and heading path. */
export function splitPassages(
  document: Pick<KnowledgeDocument, 'id' | 'title' | 'text'>,
  markdown: boolean,
): Passage[] {
  const passages: Passage[] = [];
  const trail: string[] = [];
  let buffer: string[] = [];
  const flush = () => {
    const section = buffer.join('\n').trim();
    buffer = [];
    if (!section) return;
    // Long sections are cut at paragraph boundaries into pieces of about maxPassage characters.
    let piece = '';
    for (const paragraph of section.split(/\n\s*\n/)) {
      if (piece && piece.length + paragraph.length > maxPassage) {
        passages.push(make(piece));
        piece = '';
      }
      piece = piece ? `${piece}\n\n${paragraph}` : paragraph;
    }
    if (piece) passages.push(make(piece));
  };
  const make = (text: string): Passage => ({
    id: `${document.id}#${passages.length}`,
    documentId: document.id,
    title: document.title,
    heading: trail.filter(Boolean).join(' › '),
    text: text.trim(),
  });
  let inCode = false;
  for (const line of document.text.split('\n')) {
    if (markdown && /^\s*```/.test(line)) inCode = !inCode;
    const heading = markdown && !inCode ? /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line) : null;
    if (heading) {
      flush();
      const depth = (heading[1] as string).length;
      trail.length = depth - 1;
      trail[depth - 1] = heading[2] as string;
      continue;
    }
    buffer.push(line);
  }
  flush();
  return passages;
}

/** Largest file indexed by default (`KNOWLEDGE_MAX_FILE_BYTES` overrides). */
export const defaultMaxFileBytes = 2 * 1024 * 1024;

/** How {@link loadDocuments} reads a folder. */
export interface LoadOptions {
  maxFileBytes?: number;
  /** Runs between listing the folder and opening its files: where a swap would happen (tests). */
  betweenWalkAndRead?: () => Promise<void> | void;
}

const isInside = (root: string, path: string) => path === root || path.startsWith(`${root}${sep}`);

/** A file found by {@link walk}: where it was listed, its real path, and which file it was then. */
interface FoundFile {
  path: string;
  real: string;
  dev: number;
  ino: number;
}

/**
 * Every file below `folder` that may be read: links are resolved, and only regular files whose real path
 * stays inside the real folder are kept. Links leaving it, FIFOs, sockets and devices are reported, never
 * opened (opening a FIFO would block the server).
 */
async function walk(
  root: string,
  folder: string,
  skipped: SkippedFile[],
  seen: Set<string>,
): Promise<FoundFile[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  const files: FoundFile[] = [];
  for (const entry of entries.sort((left, right) => left.name.localeCompare(right.name))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const full = join(folder, entry.name);
    const shown = relative(root, full);
    let real: string;
    try {
      real = await realpath(full);
    } catch (error) {
      skipped.push({
        path: shown,
        reason: `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      });
      continue;
    }
    if (!isInside(root, real)) {
      skipped.push({ path: shown, reason: 'links outside the documents folder' });
      continue;
    }
    const info = await stat(real);
    if (info.isDirectory()) {
      if (seen.has(real)) continue; // a link back to a folder already walked
      seen.add(real);
      files.push(...(await walk(root, full, skipped, seen)));
    } else if (info.isFile()) files.push({ path: full, real, dev: info.dev, ino: info.ino });
    else skipped.push({ path: shown, reason: 'not a regular file (FIFO, socket or device)' });
  }
  return files;
}

/** Why a file was not read: it changed between the walk and the open, or is too large. */
class NotRead extends Error {}

/**
 * Opens the file the walk checked, and only that: no link is followed at the last step, a FIFO swapped
 * in cannot block (non-blocking open), and the open handle must be the same regular file (device and
 * inode) the walk found inside the folder, so a swap between check and open reads nothing.
 */
async function openChecked(file: FoundFile) {
  const handle = await open(file.real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.dev !== file.dev || info.ino !== file.ino)
      throw new NotRead('changed while the folder was read (not the file that was checked); skipped');
    return { handle, info };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Reads at most `limit + 1` bytes, so a file that lies about its size (as /proc files do) is still capped. */
async function readCapped(handle: FileHandle, limit: number): Promise<Buffer | undefined> {
  try {
    const buffer = Buffer.alloc(limit + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > limit) return undefined;
    }
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

/**
 * Reads every Markdown, text, HTML, PDF and DOCX file below `folder`; other files, those that cannot be
 * read as their format, and any not safe to read, are reported.
 */
export async function loadDocuments(
  folder: string,
  options: LoadOptions = {},
): Promise<{ documents: KnowledgeDocument[]; skipped: SkippedFile[] }> {
  const maxFileBytes = options.maxFileBytes ?? defaultMaxFileBytes;
  const documents: KnowledgeDocument[] = [];
  const skipped: SkippedFile[] = [];
  const root = await realpath(folder);
  const files = await walk(root, root, skipped, new Set([root]));
  await options.betweenWalkAndRead?.();
  for (const file of files) {
    const path = file.path;
    const relativePath = relative(root, path);
    if (!isIndexed(path)) {
      skipped.push({ path: relativePath, reason: 'not Markdown, text, HTML, PDF or DOCX' });
      continue;
    }
    try {
      const { handle, info } = await openChecked(file);
      const bytes = info.size > maxFileBytes ? undefined : await readCapped(handle, maxFileBytes);
      if (info.size > maxFileBytes) await handle.close();
      if (bytes === undefined) {
        skipped.push({
          path: relativePath,
          reason: `larger than ${maxFileBytes} bytes (KNOWLEDGE_MAX_FILE_BYTES)`,
        });
        continue;
      }
      let extracted: Extracted;
      try {
        extracted = await extract(path, bytes);
      } catch (error) {
        skipped.push({
          path: relativePath,
          reason: `cannot be read as ${formats[extname(path).toLowerCase()]} (${String(error instanceof Error ? error.message : error).slice(0, 200)})`,
        });
        continue;
      }
      const heading = extracted.markdown ? /^#\s+(.+)$/m.exec(extracted.text)?.[1]?.trim() : undefined;
      documents.push({
        id: documentId(relativePath),
        path: relativePath.split(sep).join('/'),
        title: heading ?? extracted.title ?? basename(path, extname(path)),
        text: extracted.text,
        size: info.size,
        updated: info.mtime.toISOString(),
        markdown: extracted.markdown,
        mimeType: extracted.mimeType,
      });
    } catch (error) {
      skipped.push({
        path: relativePath,
        reason:
          error instanceof NotRead
            ? error.message
            : `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      });
    }
  }
  return { documents, skipped };
}
