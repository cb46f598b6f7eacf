import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolDefinition } from '@ai-assistant/chat-types';
import type { ToolOrigin } from '../src/choice/tool-search.js';
import { encodeToolName } from '../src/mcp/tool-names.js';

export const fixtures = join(import.meta.dirname, 'fixtures');

interface RecordedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { title?: string };
}

/** The recorded catalog as the model would see it: `mcp__<server>__<tool>`, in the files' order. */
export function recordedCatalog(): {
  tools: ToolDefinition[];
  origins: Map<string, ToolOrigin>;
  ids: Map<string, string>;
} {
  const tools: ToolDefinition[] = [];
  const origins = new Map<string, ToolOrigin>();
  const ids = new Map<string, string>();
  const folder = join(fixtures, 'tool-catalog');
  for (const file of readdirSync(folder)
    .filter((name) => name.endsWith('.json'))
    .sort()) {
    const recorded = JSON.parse(readFileSync(join(folder, file), 'utf8')) as {
      server: string;
      tools: RecordedTool[];
    };
    for (const tool of recorded.tools) {
      const name = encodeToolName(recorded.server, tool.name);
      const title = tool.title ?? tool.annotations?.title;
      tools.push({
        name,
        description: tool.description ?? title ?? tool.name,
        inputSchema: tool.inputSchema,
      });
      origins.set(name, { server: recorded.server, tool: tool.name, ...(title ? { title } : {}) });
      ids.set(`${recorded.server}__${tool.name}`, name);
    }
  }
  return { tools, origins, ids };
}
