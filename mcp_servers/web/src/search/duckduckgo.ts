import { type FetchJson, hits, type SearchBackend, text } from './types.js';

/**
 * DuckDuckGo's Instant Answer API: `GET /?q=…&format=json&no_html=1` — an abstract and related topics
 * (not full web results: it answers well-known things, and says nothing for the rest).
 */
export function duckduckgo(baseUrl: string, fetchJson: FetchJson): SearchBackend {
  return {
    name: 'duckduckgo',
    choosesEngine: false,
    async search(query, limit) {
      const url = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      url.searchParams.set('no_html', '1');
      url.searchParams.set('skip_disambig', '1');
      const body = (await fetchJson(url)) as {
        Heading?: unknown;
        AbstractText?: unknown;
        AbstractURL?: unknown;
        RelatedTopics?: unknown;
      };
      // Related topics come flat or grouped ({ Name, Topics: [...] }).
      const topics = Array.isArray(body.RelatedTopics)
        ? body.RelatedTopics.flatMap((topic: { Topics?: unknown[] }) =>
            Array.isArray(topic?.Topics) ? topic.Topics : [topic],
          )
        : [];
      const abstract = text(body.AbstractURL)
        ? [{ Text: `${text(body.Heading)} — ${text(body.AbstractText)}`, FirstURL: body.AbstractURL }]
        : [];
      return hits([...abstract, ...topics], limit, (item) => {
        const words = text(item.Text);
        return { title: words.split(' - ')[0] ?? words, url: text(item.FirstURL), snippet: words };
      });
    },
  };
}
