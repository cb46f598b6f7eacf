import { extname } from 'node:path';

/** How a file's bytes become a document's text (and, where the format has one, its title). */
export interface Extracted {
  text: string;
  title?: string;
  /** Markdown keeps its headings for passages; the others are plain text. */
  markdown: boolean;
  mimeType: string;
}

/** The extensions read, and what each is. */
export const formats: Record<string, string> = {
  '.md': 'Markdown',
  '.markdown': 'Markdown',
  '.txt': 'plain text',
  '.html': 'HTML',
  '.htm': 'HTML',
  '.pdf': 'PDF',
  '.docx': 'Word (DOCX)',
};

/** Whether a file of this name is read. */
export const isIndexed = (path: string) => extname(path).toLowerCase() in formats;

/**
 * A file's text: Markdown and text as UTF-8; HTML through html-to-text (its `<title>` kept); a PDF's
 * text layer through unpdf (pdf.js); a DOCX's text through mammoth. Each library is loaded on first use.
 * A file that cannot be read as its format throws (the caller skips it with the reason).
 */
export async function extract(path: string, bytes: Buffer): Promise<Extracted> {
  const extension = extname(path).toLowerCase();
  if (extension === '.html' || extension === '.htm') {
    const html = bytes.toString('utf8');
    const { convert } = await import('html-to-text');
    const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1]?.replace(/\s+/g, ' ').trim();
    const text = convert(html, {
      wordwrap: false,
      selectors: [
        { selector: 'a', options: { ignoreHref: true } },
        { selector: 'img', format: 'skip' },
        { selector: 'script', format: 'skip' },
        { selector: 'style', format: 'skip' },
      ],
    });
    return { text, ...(title ? { title } : {}), markdown: false, mimeType: 'text/html' };
  }
  if (extension === '.pdf') {
    const { extractText, getDocumentProxy } = await import('unpdf');
    const pdf = await getDocumentProxy(new Uint8Array(bytes));
    const { text } = await extractText(pdf, { mergePages: false });
    return { text: (text as string[]).join('\n\n'), markdown: false, mimeType: 'application/pdf' };
  }
  if (extension === '.docx') {
    const mammoth = await import('mammoth');
    const { value } = await mammoth.extractRawText({ buffer: bytes });
    return {
      text: value,
      markdown: false,
      mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    };
  }
  const text = bytes.toString('utf8');
  return extension === '.txt'
    ? { text, markdown: false, mimeType: 'text/plain' }
    : { text, markdown: true, mimeType: 'text/markdown' };
}
