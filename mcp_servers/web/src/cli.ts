import { type ParseArgsOptions, sharedUsage } from '@ai-assistant/mcp-server-kit';

/** The HTTP port when `--http` is given without `--port`. */
export const defaultPort = 3002;

/** The web server's own options, besides the ones every server takes. */
export const options: ParseArgsOptions = {
  'search-backend': { type: 'string' },
  'search-url': { type: 'string' },
  allow: { type: 'string' },
  'max-bytes': { type: 'string' },
  'timeout-ms': { type: 'string' },
};

export const usage = `Usage: mcp-server-web [--search-backend NAME] [--http [--port ${defaultPort}] [--host 127.0.0.1]]

Serves web_search, fetch_page and analyze_sentiment over MCP, protocol revisions 2025-11-25
(initialize) and 2026-07-28 (stateless, server/discover), on stdio or Streamable HTTP.

Options (each flag wins over its variable):
  --search-backend <name>  searxng, brave, tavily or duckduckgo (WEB_SEARCH_BACKEND)
  --search-url <url>       the search API's base URL (WEB_SEARCH_URL)
  --allow <hosts>          comma-separated hosts, addresses or CIDR ranges fetch_page may reach although private (WEB_ALLOW_HOSTS)
  --max-bytes <n>          the largest page body read (WEB_FETCH_MAX_BYTES, default 2 MB)
  --timeout-ms <n>         one deadline for a whole fetch (WEB_FETCH_TIMEOUT_MS, default 15000)
${sharedUsage(defaultPort)}
Environment:
  WEB_SEARCH_BACKEND, WEB_SEARCH_URL, WEB_ALLOW_HOSTS, WEB_FETCH_MAX_BYTES, WEB_FETCH_TIMEOUT_MS
                      as the flags above
  WEB_SEARCH_API_KEY  Brave's subscription token or Tavily's key (environment only: flags show in ps)
  LOG_LEVEL           "info" (default) or "warn" (logs go to stderr)
`;
