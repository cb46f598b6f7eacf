import type { Dispatcher } from 'undici';
import { nextIssueTime } from './time.js';

/** Why a JMA request failed, in terms a host can act on. */
export type JmaErrorCode = 'JMA_UNREACHABLE' | 'JMA_TIMEOUT' | 'JMA_BAD_STATUS' | 'JMA_NOT_JSON';

/** A failed request to JMA; `message` is safe to show to the model and the user. */
export class JmaError extends Error {
  override name = 'JmaError';
  constructor(
    readonly code: JmaErrorCode,
    message: string,
    options?: { cause?: unknown; status?: number },
  ) {
    super(message, options);
    this.status = options?.status;
  }

  /** The HTTP status JMA answered with (JMA_BAD_STATUS). */
  readonly status: number | undefined;
}

/** Options of {@link JmaClient}. */
export interface JmaClientOptions {
  /** Base URL of JMA (default https://www.jma.go.jp); tests and mirrors replace it. */
  baseUrl?: string;
  /** Time allowed to connect and to receive each response, in ms (default 5000). */
  timeoutMs?: number;
  /** Clock for cache expiry (default: the real clock). */
  now?: () => Date;
  userAgent?: string;
  /** Keep responses (default true); false refetches every time, for benchmarks and debugging. */
  cache?: boolean;
  /** Undici dispatcher (default: a keep-alive agent with the timeouts above). */
  dispatcher?: Dispatcher;
}

interface CacheEntry {
  value: unknown;
  expiresAt: number;
}

const dayMs = 24 * 60 * 60 * 1000;
const forecastMaxAgeMs = 30 * 60 * 1000;

/** Fetches and caches JMA's bosai JSON; concurrent requests for one URL share one fetch. */
export class JmaClient {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly now: () => Date;
  private readonly userAgent: string;
  private dispatcher: Dispatcher | undefined;
  private undici: Promise<typeof import('undici')> | undefined;
  private readonly ownsDispatcher: boolean;
  private readonly useCache: boolean;
  private readonly cache = new Map<string, CacheEntry>();
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(options: JmaClientOptions = {}) {
    this.baseUrl = (options.baseUrl ?? 'https://www.jma.go.jp').replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.now = options.now ?? (() => new Date());
    this.userAgent = options.userAgent ?? 'mcp-server-weather';
    this.ownsDispatcher = !options.dispatcher;
    this.useCache = options.cache ?? true;
    this.dispatcher = options.dispatcher;
  }

  // undici is loaded on the first request: a server answering tools/list should not pay for it.
  private async http(): Promise<{ request: typeof import('undici')['request']; dispatcher: Dispatcher }> {
    this.undici ??= import('undici');
    const undici = await this.undici;
    this.dispatcher ??= new undici.Agent({
      connect: { timeout: this.timeoutMs },
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
    });
    return { request: undici.request, dispatcher: this.dispatcher };
  }

  /** area.json: offices, class10s, class15s, class20s. Cached for 24 h. */
  areaTable(): Promise<unknown> {
    return this.cached('/bosai/common/const/area.json', dayMs);
  }

  /** A const table under /bosai/forecast/const/ (forecast_area, week_area, …). Cached for 24 h. */
  forecastConst(name: string): Promise<unknown> {
    return this.cached(`/bosai/forecast/const/${name}.json`, dayMs);
  }

  /** An office's forecast, cached until JMA's next scheduled issue (05, 11, 17 JST) or 30 min. */
  forecast(officeCode: string): Promise<unknown> {
    const now = this.now().getTime();
    const untilIssue = nextIssueTime(this.now()).getTime() - now;
    return this.cached(
      `/bosai/forecast/data/forecast/${officeCode}.json`,
      Math.min(untilIssue, forecastMaxAgeMs),
    );
  }

  /** Releases the connection pool. */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher?.close();
  }

  private cached(path: string, maxAgeMs: number): Promise<unknown> {
    const hit = this.cache.get(path);
    if (hit && hit.expiresAt > this.now().getTime()) return Promise.resolve(hit.value);
    const pending = this.inFlight.get(path);
    if (pending) return pending;
    const fetching = this.fetchJson(path)
      .then((value) => {
        if (this.useCache) this.cache.set(path, { value, expiresAt: this.now().getTime() + maxAgeMs });
        return value;
      })
      .finally(() => this.inFlight.delete(path));
    this.inFlight.set(path, fetching);
    return fetching;
  }

  private async fetchJson(path: string): Promise<unknown> {
    try {
      return await this.fetchOnce(path);
    } catch (error) {
      // One retry on a network error or a 5xx; a timeout or a 4xx will not get better at once.
      const retryable =
        error instanceof JmaError &&
        (error.code === 'JMA_UNREACHABLE' || (error.status !== undefined && error.status >= 500));
      if (!retryable) throw error;
      return await this.fetchOnce(path);
    }
  }

  private async fetchOnce(path: string): Promise<unknown> {
    const url = `${this.baseUrl}${path}`;
    const { request, dispatcher } = await this.http();
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        dispatcher,
        headers: { 'user-agent': this.userAgent, accept: 'application/json' },
        signal: AbortSignal.timeout(this.timeoutMs * 2),
      });
    } catch (error) {
      throw toNetworkError(path, error);
    }
    let text: string;
    try {
      text = await response.body.text();
    } catch (error) {
      throw toNetworkError(path, error);
    }
    if (response.statusCode < 200 || response.statusCode >= 300) {
      throw new JmaError(
        'JMA_BAD_STATUS',
        `気象庁のサーバーがエラーを返しました（HTTP ${response.statusCode}, ${path}）。`,
        { status: response.statusCode },
      );
    }
    try {
      return JSON.parse(text);
    } catch (error) {
      const type = String(response.headers['content-type'] ?? 'unknown');
      throw new JmaError(
        'JMA_NOT_JSON',
        `気象庁から想定外の応答がありました（JSON ではありません: ${type}, ${path}）。`,
        {
          cause: error,
        },
      );
    }
  }
}

function toNetworkError(path: string, error: unknown): JmaError {
  const code = (error as { code?: string; name?: string }).code ?? (error as { name?: string }).name ?? '';
  if (/TIMEOUT|AbortError|TimeoutError/i.test(code)) {
    return new JmaError('JMA_TIMEOUT', `気象庁のサーバーが時間内に応答しませんでした（${path}）。`, {
      cause: error,
    });
  }
  return new JmaError('JMA_UNREACHABLE', `気象庁のサーバーに接続できませんでした（${path}）。`, {
    cause: error,
  });
}
