import type { ImageContent, ToolFile } from '@ai-assistant/chat-types';

/** Default size limit of one tool result handed to the model, in characters. */
export const defaultResultBudget = 20_000;

interface ContentBlock {
  type: string;
  text?: string;
  mimeType?: string;
  data?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
}

/** The parts of an MCP tool result the host reads. */
export interface RawToolResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
  /** Servers of the 2024-10-07 protocol answer with `toolResult` instead of `content`. */
  toolResult?: unknown;
}

function base64Bytes(data: string | undefined): number {
  if (!data) return 0;
  return Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);
}

/** MIME types whose bytes are text: a blob of one is decoded, not described as a byte count. */
const textual =
  /^(text\/|application\/(json|xml|yaml|x-yaml|javascript|ecmascript|x-sh|sql|graphql|ld\+json)\b|[^;]*\+(json|xml)\b)/i;

/** A base64 blob's text when its type is textual and it decodes to valid UTF-8. */
function decodedText(blob: string | undefined, mimeType: string | undefined): string | undefined {
  if (!blob || !mimeType || !textual.test(mimeType)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(blob, 'base64'));
  } catch {
    return undefined;
  }
}

function describe(block: ContentBlock, server: string | undefined): string {
  switch (block.type) {
    case 'text':
      return block.text ?? '';
    case 'image':
    case 'audio':
      return `[${block.type}: ${block.mimeType ?? 'unknown type'}, ${base64Bytes(block.data)} bytes]`;
    case 'resource_link':
      // The model can follow a link with the host's resource tool, given the server that sent it.
      return `[resource link: ${block.uri ?? '?'}${block.name ? ` (${block.name})` : ''}${block.mimeType ? `, ${block.mimeType}` : ''}${server ? `; read it with host__read_resource, server "${server}"` : ''}]`;
    case 'resource': {
      const resource = block.resource ?? {};
      if (typeof resource.text === 'string') return resource.text;
      const decoded = decodedText(resource.blob, resource.mimeType);
      if (decoded !== undefined) return decoded;
      return `[resource: ${resource.uri ?? '?'}, ${resource.mimeType ?? 'unknown type'}, ${base64Bytes(resource.blob)} bytes]`;
    }
    default:
      return `[${String(block.type)} content]`;
  }
}

/** Image types every vision API takes; at most this many of at most this size leave one result. */
const imageTypes = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
export const maxImagesPerResult = 4;
export const maxImageBytes = 4 * 1024 * 1024;

/** Whether any block of the result is an image or an embedded resource (which may carry a file). */
export function carriesMedia(result: RawToolResult): boolean {
  if (!Array.isArray(result.content)) return false;
  for (const block of result.content as ContentBlock[])
    if (block?.type === 'image' || block?.type === 'resource') return true;
  return false;
}

/** The result's images a model or a thread can take: known types, valid base64, within the caps. */
export function imagesOf(result: RawToolResult): ImageContent[] {
  const blocks = Array.isArray(result.content) ? (result.content as ContentBlock[]) : [];
  return blocks
    .filter(
      (block) =>
        block.type === 'image' &&
        typeof block.data === 'string' &&
        imageTypes.has(block.mimeType ?? '') &&
        /^[A-Za-z0-9+/]+={0,2}$/.test(block.data) &&
        base64Bytes(block.data) <= maxImageBytes,
    )
    .slice(0, maxImagesPerResult)
    .map((block) => ({ mimeType: block.mimeType as string, data: block.data as string }));
}

/** At most this many files of at most this size leave one result (Slack takes far larger; memory does not). */
export const maxFilesPerResult = 4;
export const maxFileBytes = 10 * 1024 * 1024;

const extensions: Record<string, string> = {
  'text/plain': 'txt',
  'text/csv': 'csv',
  'text/markdown': 'md',
  'text/html': 'html',
  'application/json': 'json',
  'application/pdf': 'pdf',
  'application/zip': 'zip',
  'audio/wav': 'wav',
  'audio/mpeg': 'mp3',
};

/** A file name from a resource URI's last segment: letters, digits, dot, dash and underscore only. */
function fileName(uri: string | undefined, mimeType: string | undefined, index: number): string {
  let last = '';
  try {
    last = decodeURIComponent(new URL(uri ?? '').pathname.split('/').filter(Boolean).at(-1) ?? '');
  } catch {
    last = '';
  }
  const safe =
    last
      .replace(/[^\p{L}\p{N}._-]/gu, '_')
      .replace(/^[.]+/, '')
      .slice(0, 80) || `file-${index + 1}`;
  const extension = extensions[mimeType ?? ''];
  return safe.includes('.') || !extension ? safe : `${safe}.${extension}`;
}

/**
 * The files a result carries: embedded resources with a blob (a PDF, a CSV, audio…), valid base64,
 * within the caps, named after their URI. Images are `imagesOf`'s; a resource given as text is text.
 */
export function filesOf(result: RawToolResult): ToolFile[] {
  const blocks = Array.isArray(result.content) ? (result.content as ContentBlock[]) : [];
  return blocks
    .flatMap((block) => (block.type === 'resource' && block.resource ? [block.resource] : []))
    .filter(
      (resource) =>
        typeof resource.blob === 'string' &&
        /^[A-Za-z0-9+/]+={0,2}$/.test(resource.blob) &&
        base64Bytes(resource.blob) <= maxFileBytes,
    )
    .slice(0, maxFilesPerResult)
    .map((resource, index) => ({
      name: fileName(resource.uri, resource.mimeType, index),
      mimeType: resource.mimeType ?? 'application/octet-stream',
      data: resource.blob as string,
    }));
}

/** Cuts text longer than `budget`, keeping head and tail and saying how much was left out. */
export function truncateMiddle(text: string, budget: number): string {
  if (text.length <= budget) return text;
  const note = (cut: number) => `\n\n[… ${cut} characters cut of ${text.length} …]\n\n`;
  const room = Math.max(0, budget - note(text.length).length);
  const head = Math.ceil(room * 0.7);
  const tail = room - head;
  return `${text.slice(0, head)}${note(text.length - head - tail)}${text.slice(text.length - tail)}`;
}

/**
 * Turns an MCP tool result into the text the model reads: text blocks joined, other blocks
 * described (never silently dropped), textual blobs decoded, `structuredContent` only when there is
 * no content (a server that sends both puts the same result in each: the spec asks for the JSON in
 * a text block too), within a budget.
 */
export function formatToolResult(
  result: RawToolResult,
  budget = defaultResultBudget,
  /** The server the result came from, named in resource links so the model can read them. */
  server?: string,
): { text: string; isError: boolean } {
  const blocks = Array.isArray(result.content) ? (result.content as ContentBlock[]) : [];
  // The common result, one text block, is read as it is.
  const only = blocks.length === 1 ? blocks[0] : undefined;
  if (only?.type === 'text' && typeof only.text === 'string' && only.text !== '')
    return { text: truncateMiddle(only.text, budget), isError: result.isError === true };
  const parts = blocks.map((block) => describe(block, server)).filter((part) => part !== '');
  if (parts.length === 0 && result.structuredContent !== undefined) {
    parts.push(JSON.stringify(result.structuredContent, null, 2));
  }
  if (blocks.length === 0 && result.toolResult !== undefined) {
    parts.push(
      typeof result.toolResult === 'string' ? result.toolResult : JSON.stringify(result.toolResult, null, 2),
    );
  }
  const text = parts.length > 0 ? parts.join('\n') : '(the tool returned no content)';
  return { text: truncateMiddle(text, budget), isError: result.isError === true };
}
