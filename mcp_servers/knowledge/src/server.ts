import type { CallToolResult } from '@modelcontextprotocol/server';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { KnowledgeBase, SearchHit } from './knowledge-base.js';
import { version } from './version.js';

/** Options of {@link createServer}. */
export interface KnowledgeServerOptions {
  knowledge: KnowledgeBase;
  /** Longest document text returned, in characters (default 20 000). */
  documentBudget?: number;
}

const hitSchema = z.object({
  documentId: z.string(),
  title: z.string(),
  heading: z.string(),
  excerpt: z.string(),
  score: z.number(),
  matched: z.enum(['lexical', 'semantic', 'both']).optional(),
  uri: z.string(),
});

function cut(text: string, budget: number): string {
  return text.length <= budget
    ? text
    : `${text.slice(0, budget)}\n\n[… ${text.length - budget} more characters not shown]`;
}

function describeHits(query: string, hits: SearchHit[]): string {
  if (hits.length === 0) return `No passages match "${query}".`;
  return hits
    .map(
      (hit, index) =>
        `[${index + 1}] ${hit.title}${hit.heading ? ` › ${hit.heading}` : ''} (kb://documents/${hit.documentId}, score ${hit.score})\n${hit.excerpt}`,
    )
    .join('\n\n');
}

/** Builds the knowledge MCP server over an (already built) knowledge base, without starting a transport. */
export function createServer({ knowledge, documentBudget = 20_000 }: KnowledgeServerOptions): McpServer {
  const server = new McpServer(
    { name: 'mcp-server-knowledge', version },
    {
      capabilities: { logging: {} },
      instructions: 'Searches the team’s own documents. Cite the documents (title and kb:// URI) you use.',
    },
  );

  server.registerTool(
    'search_knowledge',
    {
      title: 'Search the knowledge base',
      description:
        'Search (Japanese and English, by words and, when embeddings are configured, by meaning) over the team’s documents; returns the best passages with their document, heading, score and how each matched.',
      inputSchema: z.object({
        query: z.string().min(1).describe('What to look for, in any words'),
        limit: z.number().int().min(1).max(20).optional().describe('How many passages (default 4)'),
      }),
      outputSchema: z.object({ query: z.string(), results: z.array(hitSchema) }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ query, limit }): Promise<CallToolResult> => {
      const hits = await knowledge.hybridSearch(query, limit ?? 4);
      return {
        content: [{ type: 'text', text: describeHits(query, hits) }],
        structuredContent: {
          query,
          results: hits.map((hit) => ({ ...hit, uri: `kb://documents/${hit.documentId}` })),
        },
      };
    },
  );

  server.registerTool(
    'get_document',
    {
      title: 'Read a document',
      description: 'One document’s full text by id (as returned by search_knowledge), cut to a budget.',
      inputSchema: z.object({ id: z.string().min(1).describe('Document id') }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ id }): Promise<CallToolResult> => {
      const document = knowledge.get(id);
      if (!document) {
        const known = knowledge
          .list()
          .slice(0, 10)
          .map((item) => item.id)
          .join(', ');
        return {
          content: [{ type: 'text', text: `No document "${id}". Known ids include: ${known}` }],
          isError: true,
        };
      }
      return {
        content: [
          {
            type: 'text',
            text: `# ${document.title} (${document.path})\n\n${cut(document.text, documentBudget)}`,
          },
        ],
      };
    },
  );

  server.registerResource(
    'settings',
    'kb://settings',
    {
      title: 'Index and search settings',
      description:
        'How the knowledge base indexes and searches: counts, embeddings, last rebuild (no secrets)',
      mimeType: 'application/json',
    },
    async (uri) => {
      const embeddings = knowledge.embeddings;
      // The passages search ranks by meaning now (not merely those with a vector made): a client waiting
      // for every passage to be embedded may then rely on hybrid search.
      const embedded = embeddings ? knowledge.searchableByMeaning() : 0;
      const settings = {
        ...knowledge.stats(),
        lastRebuild: knowledge.lastRebuild ?? null,
        skippedFiles: knowledge.skipped.length,
        search: embeddings ? 'hybrid (BM25 + embeddings, reciprocal rank fusion)' : 'lexical (BM25)',
        embeddings: embeddings
          ? {
              model: embeddings.settings.model,
              // The endpoint's host only: never its key, never a path that might carry one.
              endpoint: new URL(embeddings.settings.url).host,
              embeddedPassages: embedded,
              ...embeddings.counts,
              ...(embeddings.lastError ? { lastError: embeddings.lastError.slice(0, 300) } : {}),
            }
          : null,
      };
      return {
        contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(settings, null, 2) }],
      };
    },
  );

  server.registerResource(
    'documents',
    'kb://documents',
    {
      title: 'All documents',
      description: 'Every indexed document with id, title, size and update time',
      mimeType: 'application/json',
    },
    async (uri) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'application/json',
          text: JSON.stringify(
            knowledge.list().map(({ id, path, title, size, updated }) => ({
              id,
              path,
              title,
              size,
              updated,
              uri: `kb://documents/${id}`,
            })),
            null,
            2,
          ),
        },
      ],
    }),
  );

  server.registerResource(
    'document',
    new ResourceTemplate('kb://documents/{id}', {
      list: async () => ({
        resources: knowledge.list().map((document) => ({
          uri: `kb://documents/${document.id}`,
          name: document.title,
          // Each document's own title and path, not the template's generic ones.
          title: document.title,
          description: document.path,
          mimeType: document.markdown ? 'text/markdown' : 'text/plain',
          size: document.size,
        })),
      }),
    }),
    { title: 'A document', description: 'One document’s text' },
    async (uri, { id }) => {
      const document = knowledge.get(String(id));
      if (!document) throw new Error(`No document "${String(id)}"`);
      return {
        contents: [
          {
            uri: uri.href,
            mimeType: document.markdown ? 'text/markdown' : 'text/plain',
            text: cut(document.text, documentBudget),
          },
        ],
      };
    },
  );

  server.registerPrompt(
    'answer_with_context',
    {
      title: 'Answer from the documents',
      description: 'Fills in the best passages for a question and asks for an answer that cites them',
      argsSchema: z.object({ question: z.string().describe('The question to answer') }),
    },
    ({ question }) => {
      const hits = knowledge.search(question, 5);
      const context = hits.length > 0 ? describeHits(question, hits) : '(no matching passages)';
      return {
        messages: [
          {
            role: 'user',
            content: {
              type: 'text',
              text: `Answer the question using only these passages from our documents. Cite each document you use as [n] with its title. If they do not answer it, say so.\n\n${context}\n\nQuestion: ${question}`,
            },
          },
        ],
      };
    },
  );

  server.registerPrompt(
    'summarize_document',
    {
      title: 'Summarize a document',
      description: 'Asks for a short summary of one document',
      argsSchema: z.object({ id: z.string().describe('Document id') }),
    },
    ({ id }) => {
      const document = knowledge.get(id);
      if (!document) throw new Error(`No document "${id}"`);
      return {
        messages: [
          {
            role: 'user',
            content: {
              type: 'text',
              text: `Summarize this document in a few bullet points, in the language it is written in.\n\n${titled(document.title, cut(document.text, documentBudget))}`,
            },
          },
        ],
      };
    },
  );

  return server;
}

/** A document's text under its title, unless the text already opens with that title as its heading. */
function titled(title: string, text: string): string {
  const firstLine = text.trimStart().split('\n', 1)[0] ?? '';
  return /^#{1,6}\s/.test(firstLine) && firstLine.replace(/^#+\s*/, '').trim() === title.trim()
    ? text.trimStart()
    : `# ${title}\n\n${text}`;
}

export { KnowledgeBase } from './knowledge-base.js';
export { tokenize } from './tokenize.js';

/**
 * The MCP servers over one shared knowledge base: one per 2025 session (or stdio connection), one per
 * 2026-07-28 request. A server leaves the set when it closes, so closed sessions and finished requests
 * free their memory.
 */
export function sessionServers(knowledge: KnowledgeBase): {
  newServer: () => McpServer;
  notifyResourcesChanged: () => void;
  size: () => number;
} {
  const servers = new Set<McpServer>();
  return {
    newServer() {
      const server = createServer({ knowledge });
      servers.add(server);
      server.server.onclose = () => servers.delete(server);
      return server;
    },
    notifyResourcesChanged() {
      for (const server of servers) if (server.isConnected()) void server.sendResourceListChanged();
    },
    size: () => servers.size,
  };
}
