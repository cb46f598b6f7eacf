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

const taskStatuses = new Set(['pending', 'in_progress', 'complete', 'error']);

/**
 * Slack's rules for a streaming call's `chunks` (`markdown_text`, `task_update`, `plan_update`,
 * `blocks`, as @slack/types' AnyChunk): a reason when they break them, else undefined.
 * https://docs.slack.dev/messaging/sending-and-scheduling-messages#text-streaming
 */
export function invalidChunks(chunks: unknown): string | undefined {
  if (chunks === undefined) return undefined;
  if (!Array.isArray(chunks)) return 'chunks is not an array';
  for (const chunk of chunks as Array<Record<string, unknown>>) {
    switch (chunk?.type) {
      case 'markdown_text':
        if (typeof chunk.text !== 'string') return 'a markdown_text chunk without text';
        break;
      case 'task_update':
        if (typeof chunk.id !== 'string' || chunk.id === '') return 'a task_update chunk without id';
        if (typeof chunk.title !== 'string' || chunk.title === '') return 'a task_update chunk without title';
        if (!taskStatuses.has(String(chunk.status))) return `a task_update status of ${String(chunk.status)}`;
        break;
      case 'plan_update':
        if (typeof chunk.title !== 'string') return 'a plan_update chunk without title';
        break;
      case 'blocks':
        if (!Array.isArray(chunk.blocks) || chunk.blocks.length > 50)
          return 'a blocks chunk of 1 to 50 blocks';
        break;
      default:
        return `an unknown chunk type ${String(chunk?.type)}`;
    }
  }
  return undefined;
}

/** The task updates a streaming call carries, in order. */
export function streamedTasks(args: Record<string, unknown>): Array<Record<string, unknown>> {
  const chunks = Array.isArray(args.chunks) ? (args.chunks as Array<Record<string, unknown>>) : [];
  return chunks.filter((chunk) => chunk.type === 'task_update');
}
