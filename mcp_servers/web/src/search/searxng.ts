import { type FetchJson, hits, type SearchBackend, text } from './types.js';

/** A self-hosted SearXNG: `GET /search?q=…&format=json` (the JSON format enabled in its settings), no key. */
export function searxng(baseUrl: string, fetchJson: FetchJson): SearchBackend {
  return {
    name: 'searxng',
    choosesEngine: true,
    async search(query, limit, source) {
      const url = new URL('search', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      // The instance's engine of that name (docs.searxng.org/dev/search_api: `engines`, comma-separated).
      if (source) url.searchParams.set('engines', source);
      const body = (await fetchJson(url)) as { results?: unknown };
      return hits(body.results, limit, (item) => ({
        title: text(item.title),
        url: text(item.url),
        snippet: text(item.content),
      }));
    },
  };
}
