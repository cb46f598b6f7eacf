import { type FetchJson, hits, type SearchBackend, text } from './types.js';

/** A self-hosted SearXNG: `GET /search?q=…&format=json` (the JSON format enabled in its settings), no key. */
export function searxng(baseUrl: string, fetchJson: FetchJson): SearchBackend {
  return {
    name: 'searxng',
    async search(query, limit) {
      const url = new URL('search', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      const body = (await fetchJson(url)) as { results?: unknown };
      return hits(body.results, limit, (item) => ({
        title: text(item.title),
        url: text(item.url),
        snippet: text(item.content),
      }));
    },
  };
}
