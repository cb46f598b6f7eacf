import { type FetchJson, hits, type SearchBackend, text } from './types.js';

/** Tavily: `POST /search` with a JSON body and `Authorization: Bearer <key>`. */
export function tavily(baseUrl: string, apiKey: string, fetchJson: FetchJson): SearchBackend {
  return {
    name: 'tavily',
    choosesEngine: false,
    async search(query, limit) {
      const url = new URL('search', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
      const body = (await fetchJson(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query, max_results: Math.min(20, limit), search_depth: 'basic' }),
      })) as { results?: unknown };
      return hits(body.results, limit, (item) => ({
        title: text(item.title),
        url: text(item.url),
        snippet: text(item.content),
      }));
    },
  };
}
