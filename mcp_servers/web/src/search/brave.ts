import { type FetchJson, hits, type SearchBackend, text } from './types.js';

/** Brave Search API: `GET /res/v1/web/search?q=…&count=…` with `X-Subscription-Token`. */
export function brave(baseUrl: string, apiKey: string, fetchJson: FetchJson): SearchBackend {
  return {
    name: 'brave',
    choosesEngine: false,
    async search(query, limit) {
      const url = new URL('res/v1/web/search', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
      url.searchParams.set('q', query);
      url.searchParams.set('count', String(Math.min(20, limit)));
      const body = (await fetchJson(url, {
        headers: { 'x-subscription-token': apiKey, accept: 'application/json' },
      })) as { web?: { results?: unknown } };
      return hits(body.web?.results, limit, (item) => ({
        title: text(item.title),
        url: text(item.url),
        snippet: text(item.description),
      }));
    },
  };
}
