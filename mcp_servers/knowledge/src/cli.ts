import { type ParseArgsOptions, sharedUsage } from '@ai-assistant/mcp-server-kit';

/** The HTTP port when `--http` is given without `--port`. */
export const defaultPort = 3001;

/** The knowledge server's own options, besides the ones every server takes. */
export const options: ParseArgsOptions = {
  docs: { type: 'string' },
  'embeddings-url': { type: 'string' },
  'embeddings-model': { type: 'string' },
  'cache-dir': { type: 'string' },
};

export const usage = `Usage: mcp-server-knowledge [--docs DIR] [--http [--port ${defaultPort}] [--host 127.0.0.1]]

Serves search_knowledge and get_document over MCP, with kb://documents resources and prompts, protocol
revisions 2025-11-25 (initialize) and 2026-07-28 (stateless, server/discover), on stdio or Streamable HTTP.

Options:
  --docs <dir>   folder of Markdown / text documents (default: KNOWLEDGE_DIR, else the bundled example corpus)
  --embeddings-url <url>     an OpenAI-compatible embeddings endpoint's base URL: hybrid search
  --embeddings-model <name>  the embedding model (with --embeddings-url)
  --cache-dir <dir>          where vectors are kept (default: KNOWLEDGE_CACHE_DIR, else the user's cache folder)
${sharedUsage(defaultPort)}
Environment:
  KNOWLEDGE_DIR  folder of documents (when --docs is not given)
  KNOWLEDGE_MAX_FILE_BYTES  largest file indexed (default 2097152); larger ones are skipped
  KNOWLEDGE_EMBEDDINGS_URL, KNOWLEDGE_EMBEDDINGS_MODEL, KNOWLEDGE_EMBEDDINGS_API_KEY
                 hybrid search through an OpenAI-compatible embeddings endpoint (the key only from here)
  KNOWLEDGE_CACHE_DIR  where vectors are kept between runs
  LOG_LEVEL      "info" (default) or "warn" (logs go to stderr)
`;
