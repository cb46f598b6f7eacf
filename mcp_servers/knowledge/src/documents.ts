import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, join, relative, sep } from 'node:path';

/** One indexed document. */
export interface KnowledgeDocument {
  /** URL-safe id: the path relative to the folder, encoded. */
  id: string;
  path: string;
  title: string;
  text: string;
  size: number;
  updated: string;
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

const indexed = new Set(['.md', '.markdown', '.txt']);
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

async function walk(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const full = join(folder, entry.name);
    if (entry.isDirectory()) files.push(...(await walk(full)));
    else files.push(full);
  }
  return files.sort();
}

/** Reads every Markdown and text file below `folder`; other files and unreadable ones are reported. */
export async function loadDocuments(
  folder: string,
): Promise<{ documents: KnowledgeDocument[]; skipped: SkippedFile[] }> {
  const documents: KnowledgeDocument[] = [];
  const skipped: SkippedFile[] = [];
  for (const path of await walk(folder)) {
    const relativePath = relative(folder, path);
    if (!indexed.has(extname(path).toLowerCase())) {
      skipped.push({ path: relativePath, reason: 'not Markdown or plain text' });
      continue;
    }
    try {
      const [text, info] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
      const heading = /^#\s+(.+)$/m.exec(text)?.[1]?.trim();
      documents.push({
        id: documentId(relativePath),
        path: relativePath.split(sep).join('/'),
        title: heading ?? basename(path, extname(path)),
        text,
        size: info.size,
        updated: info.mtime.toISOString(),
      });
    } catch (error) {
      skipped.push({
        path: relativePath,
        reason: `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      });
    }
  }
  return { documents, skipped };
}
