// Slack's limits on reading history for distributed apps not approved for the Marketplace
// (https://docs.slack.dev/apis/web-api/rate-limits, changelog 2025-05-29): conversations.history and
// conversations.replies answer 1 request a minute per workspace, at most 15 messages a page; past that,
// HTTP 429 with Retry-After.

/** The distributed-app limits on history reads, as the fake applies them. */
export interface HistoryLimits {
  /** Calls per window (Slack: 1). */
  perWindow?: number;
  /** The window (Slack: 60 000 ms). */
  windowMs?: number;
  /** The most messages a page holds (Slack: 15), whatever `limit` asks. */
  pageSize?: number;
  /** The fake's clock (default the real one). */
  now?: () => number;
}

/** A history read the fake refused: the method, the token's workspace key and the Retry-After given. */
export interface RefusedRead {
  method: string;
  token: string | undefined;
  retryAfterSeconds: number;
}

export const historyMethods = new Set(['conversations.history', 'conversations.replies']);

/** Counts history reads per token; `refuse` says how long to wait when one is over the limit. */
export function historyLimiter(limits: HistoryLimits) {
  const perWindow = limits.perWindow ?? 1;
  const windowMs = limits.windowMs ?? 60_000;
  const now = limits.now ?? Date.now;
  const reads = new Map<string, number[]>();
  const refused: RefusedRead[] = [];
  return {
    pageSize: limits.pageSize ?? 15,
    refused,
    /** Undefined when the call may go on; else the seconds to put in Retry-After (the call is refused). */
    refuse(method: string, token: string | undefined): number | undefined {
      if (!historyMethods.has(method)) return undefined;
      const key = token ?? '';
      const at = now();
      const recent = (reads.get(key) ?? []).filter((time) => at - time < windowMs);
      if (recent.length >= perWindow) {
        const retryAfterSeconds = Math.max(1, Math.ceil(((recent[0] as number) + windowMs - at) / 1000));
        refused.push({ method, token, retryAfterSeconds });
        reads.set(key, recent);
        return retryAfterSeconds;
      }
      recent.push(at);
      reads.set(key, recent);
      return undefined;
    },
  };
}

export type HistoryLimiter = ReturnType<typeof historyLimiter>;
