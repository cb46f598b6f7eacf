/** One search hit, whatever the backend. */
export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

/** A backend: its name and one query → hits. `fetchJson` is the server's own fetch (timeouts, caps). */
export interface SearchBackend {
  name: string;
  /**
   * Whether the backend can search through a named engine (`web_search`'s `source`): SearXNG's `engines`
   * parameter can; Brave, Tavily and DuckDuckGo search only their own index.
   */
  choosesEngine: boolean;
  search(query: string, limit: number, source?: string): Promise<SearchResult[]>;
}

/** How a backend reaches its API: a JSON request with the server's deadline and size cap. */
export type FetchJson = (
  url: URL,
  init?: { method?: string; headers?: Record<string, string>; body?: string },
) => Promise<unknown>;

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** The hits an API returned, cut to `limit`, each with a URL (items without one are dropped). */
export function hits(
  items: unknown,
  limit: number,
  map: (item: Record<string, unknown>) => SearchResult,
): SearchResult[] {
  if (!Array.isArray(items)) return [];
  return items
    .filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null)
    .map(map)
    .filter((hit) => /^https?:\/\//.test(hit.url))
    .slice(0, limit)
    .map((hit) => ({
      title: hit.title.slice(0, 300),
      url: hit.url.slice(0, 2000),
      snippet: hit.snippet.slice(0, 1000),
    }));
}

export { text };
