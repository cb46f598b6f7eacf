import {
  type CallToolResult,
  type CreateMessageResult,
  type CreateMessageResultWithTools,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  McpServer,
} from '@modelcontextprotocol/server';
import { type Dispatcher, fetch } from 'undici';
import { z } from 'zod';
import { Allowlist, guardedAgent } from './address-guard.js';
import { type FetchLimits, FetchRefused, fetchPage } from './fetch-page.js';
import { brave } from './search/brave.js';
import { duckduckgo } from './search/duckduckgo.js';
import { searxng } from './search/searxng.js';
import { tavily } from './search/tavily.js';
import type { FetchJson, SearchBackend } from './search/types.js';
import { version } from './version.js';

/** Which search API `web_search` uses, where, and its key (never logged, never in a result). */
export interface SearchSettings {
  backend: 'searxng' | 'brave' | 'tavily' | 'duckduckgo';
  url?: string;
  apiKey?: string;
}

/** Options of {@link createServer}. */
export interface WebServerOptions {
  search?: SearchSettings;
  /** Hosts, addresses or CIDR ranges `fetch_page` may reach although private (e.g. an intranet). */
  allow?: string[];
  limits?: Partial<FetchLimits>;
  /** Where `fetch_page` connects (default: a guarded agent over `allow`); tests pass one. */
  dispatcher?: Dispatcher;
}

const defaultUrls: Record<SearchSettings['backend'], string> = {
  searxng: '',
  brave: 'https://api.search.brave.com/',
  tavily: 'https://api.tavily.com/',
  duckduckgo: 'https://api.duckduckgo.com/',
};

/** The configured backend, or why there is none (said to the model as a tool error). */
export function searchBackend(
  settings: SearchSettings | undefined,
  fetchJson: FetchJson,
): SearchBackend | string {
  if (!settings)
    return 'no search backend is configured: set WEB_SEARCH_BACKEND (searxng, brave, tavily or duckduckgo)';
  const url = settings.url || defaultUrls[settings.backend];
  if (!url) return `the ${settings.backend} backend needs WEB_SEARCH_URL (your instance's address)`;
  if ((settings.backend === 'brave' || settings.backend === 'tavily') && !settings.apiKey)
    return `the ${settings.backend} backend needs WEB_SEARCH_API_KEY`;
  switch (settings.backend) {
    case 'searxng':
      return searxng(url, fetchJson);
    case 'brave':
      return brave(url, settings.apiKey as string, fetchJson);
    case 'tavily':
      return tavily(url, settings.apiKey as string, fetchJson);
    default:
      return duckduckgo(url, fetchJson);
  }
}

/** A search API's JSON, with a deadline and a size cap; errors name the host and status, never the key. */
function jsonFetcher(timeoutMs: number): FetchJson {
  return async (url, init = {}) => {
    const response = await fetch(url, {
      method: init.method ?? 'GET',
      headers: { accept: 'application/json', ...init.headers },
      ...(init.body ? { body: init.body } : {}),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${url.host} answered HTTP ${response.status}`);
    if (text.length > 2 * 1024 * 1024) throw new Error(`${url.host} answered more than 2 MB`);
    try {
      return JSON.parse(text);
    } catch {
      throw new Error(`${url.host} did not answer JSON`);
    }
  };
}

const failure = (message: string) => ({ content: [{ type: 'text' as const, text: message }], isError: true });

const labels = ['positive', 'negative', 'neutral', 'mixed'] as const;

/** Builds the web MCP server without starting any transport (no side effects), so tests can serve it. */
export function createServer(options: WebServerOptions = {}): McpServer {
  // logging lets hosts set a level (logging/setLevel), as every ai-assistant server does; logs go to stderr.
  const server = new McpServer({ name: 'mcp-server-web', version }, { capabilities: { logging: {} } });
  const allow = new Allowlist(options.allow);
  const dispatcher = options.dispatcher ?? guardedAgent(allow);
  const robots = new Map<string, string>();
  const backend = searchBackend(options.search, jsonFetcher(options.limits?.timeoutMs ?? 15_000));

  server.registerTool(
    'web_search',
    {
      title: 'Search the web',
      description: 'Searches the web and returns titles, URLs and snippets. Use fetch_page to read a result.',
      inputSchema: z.object({
        query: z.string().min(1).max(400).describe('what to search for'),
        limit: z.number().int().min(1).max(10).optional().describe('how many results (default 5)'),
        source: z
          .string()
          .regex(/^[a-z0-9 _.-]{1,40}$/i)
          .optional()
          .describe(
            'which search engine to ask, e.g. google, bing or duckduckgo (default: the configured backend as it is set up); only a SearXNG backend can choose',
          ),
      }),
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async ({ query, limit, source }) => {
      if (typeof backend === 'string') return failure(backend);
      const engine = source?.trim().toLowerCase();
      if (engine && !backend.choosesEngine && engine !== backend.name)
        return failure(
          `web_search cannot use source "${engine}": the ${backend.name} backend searches only its own index. Search again without "source", or ask the operator for a SearXNG backend (WEB_SEARCH_BACKEND=searxng), which can ask ${engine}.`,
        );
      try {
        const results = await backend.search(query, limit ?? 5, backend.choosesEngine ? engine : undefined);
        const text =
          results.length === 0
            ? `No results for "${query}" (${backend.name}).`
            : results
                .map((hit, index) => `${index + 1}. ${hit.title}\n   ${hit.url}\n   ${hit.snippet}`)
                .join('\n');
        return { content: [{ type: 'text', text }], structuredContent: { backend: backend.name, results } };
      } catch (error) {
        return failure(
          `web_search failed (${backend.name}): ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    },
  );

  server.registerTool(
    'fetch_page',
    {
      title: 'Read a web page',
      description:
        'Fetches a public web page (http or https) and returns its readable text. Private, loopback and metadata addresses are refused; robots.txt is honoured; large pages are cut.',
      inputSchema: z.object({ url: z.string().min(1).max(2000).describe('the page URL') }),
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async ({ url }) => {
      try {
        const page = await fetchPage(url, {
          dispatcher,
          allow,
          robots,
          ...(options.limits ? { limits: options.limits } : {}),
        });
        const text = `${page.title ? `# ${page.title}\n\n` : ''}${page.text}${page.truncated ? '\n\n[the page was cut at the size limit]' : ''}`;
        return {
          content: [{ type: 'text', text }],
          structuredContent: {
            url: page.url,
            ...(page.title ? { title: page.title } : {}),
            truncated: page.truncated,
          },
        };
      } catch (error) {
        return failure(
          `fetch_page refused or failed: ${error instanceof FetchRefused ? error.message : String(error)}`,
        );
      }
    },
  );

  server.registerTool(
    'analyze_sentiment',
    {
      title: 'Sentiment of a text',
      description:
        "Says whether a text is positive, negative, neutral or mixed, and why, using the host's model (MCP sampling).",
      inputSchema: z.object({ text: z.string().min(1).max(8000).describe('the text to judge') }),
      annotations: { readOnlyHint: true },
    },
    async ({ text }, context): Promise<CallToolResult | InputRequiredResult> => {
      if (!server.server.getClientCapabilities()?.sampling)
        return failure(
          'this host does not offer sampling (MCP sampling/createMessage), which analyze_sentiment needs',
        );
      const request = {
        systemPrompt:
          'You judge the sentiment of a text. Answer with JSON only: {"label": "positive" | "negative" | "neutral" | "mixed", "reason": "<one short sentence>"}.',
        messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }],
        maxTokens: 200,
      };
      try {
        let answer: CreateMessageResult | CreateMessageResultWithTools;
        if (context.mcpReq.envelope) {
          // 2026-07-28 has no server-to-client requests: the call returns the sampling request, and the
          // client calls again with the model's answer.
          const response = inputResponse(context.mcpReq.inputResponses, 'sentiment');
          if (response.kind !== 'sampling')
            return inputRequired({ inputRequests: { sentiment: inputRequired.createMessage(request) } });
          answer = response.result;
        } else {
          answer = await context.mcpReq.requestSampling(request);
        }
        const content = Array.isArray(answer.content) ? answer.content[0] : answer.content;
        const reply = content?.type === 'text' ? content.text : '';
        const parsed = JSON.parse(/\{[\s\S]*\}/.exec(reply)?.[0] ?? '{}') as {
          label?: unknown;
          reason?: unknown;
        };
        const label = labels.find((candidate) => candidate === parsed.label);
        if (!label) return failure(`the model's answer was not a sentiment: ${reply.slice(0, 200)}`);
        const reason = typeof parsed.reason === 'string' ? parsed.reason.slice(0, 500) : '';
        return {
          content: [{ type: 'text', text: `${label}${reason ? `: ${reason}` : ''}` }],
          structuredContent: { label, reason },
        };
      } catch (error) {
        return failure(
          `analyze_sentiment: the host's model did not answer (${error instanceof Error ? error.message : String(error)})`,
        );
      }
    },
  );
  return server;
}
