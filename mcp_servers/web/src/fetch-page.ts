import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { type Dispatcher, fetch } from 'undici';
import { type Allowlist, checkDestination } from './address-guard.js';
import { robotsAllow, robotsRules } from './robots.js';

/** Limits of one page fetch. */
export interface FetchLimits {
  /** Largest body read (default 2 MB); past it the page is cut and says so. */
  maxBytes: number;
  /** The whole fetch, redirects and robots.txt included (default 15 s). */
  timeoutMs: number;
  /** Redirects followed, each checked like the first URL (default 5). */
  maxRedirects: number;
  userAgent: string;
}

export const defaultLimits: FetchLimits = {
  maxBytes: 2 * 1024 * 1024,
  timeoutMs: 15_000,
  maxRedirects: 5,
  userAgent: 'ai-assistant-web/0.1 (+https://github.com/ai-assistant/ai-assistant)',
};

/** A fetched page as readable text. */
export interface Page {
  url: string;
  title?: string;
  text: string;
  /** The body was larger than the limit: this is its beginning. */
  truncated: boolean;
  contentType: string;
}

/** Why a page was not fetched (the message is for the model and the person). */
export class FetchRefused extends Error {
  override name = 'FetchRefused';
}

/** Reads at most `max` bytes of a body; whether more was left. */
async function readCapped(body: ReadableStream<Uint8Array> | null, max: number) {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  if (!body) return { bytes: Buffer.alloc(0), truncated };
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.length > max) {
      chunks.push(value.subarray(0, max - size));
      size = max;
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
    size += value.length;
  }
  return { bytes: Buffer.concat(chunks), truncated };
}

/**
 * Fetches a page for reading: http(s) only, every URL (the first and each redirect) checked against the
 * address rules before it is requested and again at connect time by `dispatcher`, robots.txt honoured
 * per origin, a size cap and one deadline for everything. HTML becomes its readable text (Mozilla's
 * Readability over linkedom); other text is returned as it is; anything else is refused.
 */
export async function fetchPage(
  address: string,
  options: {
    dispatcher: Dispatcher;
    allow: Allowlist;
    limits?: Partial<FetchLimits>;
    robots?: Map<string, string>;
  },
): Promise<Page> {
  const limits = { ...defaultLimits, ...options.limits };
  const signal = AbortSignal.timeout(limits.timeoutMs);
  const robots = options.robots ?? new Map<string, string>();
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new FetchRefused(`not a URL: ${address.slice(0, 200)}`);
  }
  try {
    for (let hop = 0; ; hop++) {
      checkDestination(url, options.allow);
      if (
        !robotsAllow(
          robotsRules(await robotsOf(url, options, limits, robots, signal), limits.userAgent),
          `${url.pathname}${url.search}`,
        )
      )
        throw new FetchRefused(`${url.origin}/robots.txt does not allow fetching ${url.pathname}`);
      const response = await fetch(url, {
        dispatcher: options.dispatcher,
        redirect: 'manual',
        signal,
        headers: { 'user-agent': limits.userAgent, accept: 'text/html, text/plain;q=0.9, */*;q=0.1' },
      });
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel().catch(() => undefined);
        if (hop >= limits.maxRedirects) throw new FetchRefused(`more than ${limits.maxRedirects} redirects`);
        url = new URL(location, url);
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new FetchRefused(`${url.host} answered HTTP ${response.status}`);
      }
      const contentType =
        (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
      if (!/^(text\/|application\/(xhtml\+xml|xml|json))/.test(contentType)) {
        await response.body?.cancel().catch(() => undefined);
        throw new FetchRefused(`not a page to read: ${contentType || 'no content type'}`);
      }
      const { bytes, truncated } = await readCapped(
        response.body as ReadableStream<Uint8Array> | null,
        limits.maxBytes,
      );
      const raw = new TextDecoder('utf-8').decode(bytes);
      return { url: url.toString(), ...readable(raw, contentType), truncated, contentType };
    }
  } catch (error) {
    if (signal.aborted) throw new FetchRefused(`the page took longer than ${limits.timeoutMs} ms`);
    if (error instanceof FetchRefused) throw error;
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof Error && cause.name === 'ForbiddenAddressError')
      throw new FetchRefused(cause.message);
    if (error instanceof Error && error.name === 'ForbiddenAddressError')
      throw new FetchRefused(error.message);
    throw new FetchRefused(
      `could not fetch ${url.host}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/**
 * The origin's robots.txt (cached per origin for this server's life). Redirects are followed as RFC 9309
 * §2.3.1.2 asks (up to `maxRedirects`, across hosts too), each hop checked like a page's: a hop the
 * address rules refuse, too many hops, a 4xx or a failure leave the file unavailable, which allows
 * everything (§2.3.1.3); a private address never answers for a public site.
 */
async function robotsOf(
  url: URL,
  options: { dispatcher: Dispatcher; allow: Allowlist },
  limits: FetchLimits,
  cache: Map<string, string>,
  signal: AbortSignal,
): Promise<string> {
  const known = cache.get(url.origin);
  if (known !== undefined) return known;
  let text = '';
  try {
    let address = new URL('/robots.txt', url);
    for (let hop = 0; hop <= limits.maxRedirects; hop++) {
      checkDestination(address, options.allow);
      const response = await fetch(address, {
        dispatcher: options.dispatcher,
        redirect: 'manual',
        signal,
        headers: { 'user-agent': limits.userAgent },
      });
      const location = response.headers.get('location');
      if (response.ok)
        text = new TextDecoder().decode(
          (await readCapped(response.body as ReadableStream<Uint8Array> | null, 512 * 1024)).bytes,
        );
      else await response.body?.cancel().catch(() => undefined);
      if (response.status < 300 || response.status >= 400 || !location) break;
      address = new URL(location, address);
    }
  } catch (error) {
    if (signal.aborted) throw error;
    text = '';
  }
  cache.set(url.origin, text);
  return text;
}

/** A page's title and readable text. */
function readable(raw: string, contentType: string): { title?: string; text: string } {
  if (!contentType.includes('html')) return { text: raw };
  const { document } = parseHTML(raw);
  const title = document.querySelector('title')?.textContent?.trim() || undefined;
  let text = '';
  try {
    const article = new Readability(
      document as unknown as ConstructorParameters<typeof Readability>[0],
    ).parse();
    text = article?.textContent?.trim() ?? '';
  } catch {
    text = '';
  }
  if (!text) text = document.body?.textContent?.trim() ?? '';
  return { ...(title ? { title } : {}), text: text.replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n') };
}
