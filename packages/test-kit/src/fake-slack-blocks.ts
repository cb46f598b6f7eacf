// What a message the app posts carries: its streamed markdown, and the Block Kit limits Slack enforces.

/** The markdown a streaming call carries, whether as `markdown_text` or as `markdown_text` chunks. */
export function streamedText(args: Record<string, unknown>): string {
  const chunks = Array.isArray(args.chunks) ? (args.chunks as Array<{ type?: string; text?: unknown }>) : [];
  const fromChunks = chunks
    .filter((chunk) => chunk.type === 'markdown_text')
    .map((chunk) => String(chunk.text ?? ''))
    .join('');
  return `${typeof args.markdown_text === 'string' ? args.markdown_text : ''}${fromChunks}`;
}

/**
 * Slack's Block Kit limits for a message, enforced as Slack does (`invalid_blocks`): 50 blocks; a section's
 * text at most 3 000 characters, at most 10 fields of 2 000.
 */
export function invalidBlocks(blocks: unknown): string | undefined {
  if (!Array.isArray(blocks)) return undefined;
  if (blocks.length > 50) return `${blocks.length} blocks (at most 50)`;
  for (const block of blocks as Array<{
    type?: string;
    text?: { text?: string };
    fields?: Array<{ text?: string }>;
  }>) {
    if (block.type !== 'section') continue;
    if ((block.text?.text ?? '').length > 3000) return 'a section text over 3000 characters';
    if ((block.fields ?? []).length > 10) return 'a section with more than 10 fields';
    if ((block.fields ?? []).some((field) => (field.text ?? '').length > 2000))
      return 'a section field over 2000 characters';
  }
  return undefined;
}
