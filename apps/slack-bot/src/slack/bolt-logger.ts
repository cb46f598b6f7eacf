import type { Logger } from '@ai-assistant/host-core';
import { type Logger as BoltLogger, LogLevel } from '@slack/bolt';

/**
 * Bolt's debug lines that quote whole payloads (what people typed, tokens pasted into a modal) keep
 * only their first words: a secret never reaches the log, whatever the level.
 */
const payloadLines =
  /^(Received a message on the WebSocket|Sending a WebSocket message|http request body|http request result|ack\(\) call begins|ack\(\) response sent)\b.*$/s;

/** The Web API client's line for a request that never reached Slack (DNS, refused, reset, proxy). */
const unreachable = /^http request failed\b/;
/** Failures in a row before the one clear line; and how long that line stays the only one. */
const failuresBeforeAdvice = 3;
const adviceQuietMs = 5 * 60_000;

/**
 * Bolt's logger on ours. When Slack's API cannot be reached, the client retries for minutes with one
 * bare "http request failed" line each time: after a few, one error says which URL and what to check,
 * and the repeats go to debug until the quiet period ends or a request succeeds again.
 */
export function boltLogger(
  logger: Logger,
  apiUrl: string,
  now: () => number = Date.now,
  /** Told the failed requests in a row each time that count changes (0: Slack answered again). */
  onFailures?: (failures: number) => void,
): BoltLogger {
  let level = LogLevel.INFO;
  let failures = 0;
  let advisedAt: number | undefined;
  const text = (parts: unknown[]) =>
    parts
      .map((part) => (typeof part === 'string' ? part : JSON.stringify(part)))
      .join(' ')
      .replace(payloadLines, '$1 [payload omitted]');
  const reachedSlack = () => {
    if (failures > 0) onFailures?.(0);
    failures = 0;
    advisedAt = undefined;
  };
  return {
    debug: (...parts) => {
      const line = text(parts);
      // The client logs every response it got: Slack is reachable again.
      if (/^http response received\b/.test(line)) reachedSlack();
      logger.debug({ source: 'bolt' }, line);
    },
    info: (...parts) => logger.info({ source: 'bolt' }, text(parts)),
    warn: (...parts) => {
      const line = text(parts);
      if (!unreachable.test(line)) return void logger.warn({ source: 'bolt' }, line);
      failures += 1;
      onFailures?.(failures);
      if (advisedAt !== undefined && now() - advisedAt < adviceQuietMs)
        return void logger.debug({ source: 'bolt', failures }, line);
      if (failures < failuresBeforeAdvice) return void logger.warn({ source: 'bolt' }, line);
      advisedAt = now();
      logger.error(
        { source: 'bolt', url: apiUrl, failures, cause: line.replace(unreachable, '').trim() },
        `cannot reach Slack's API at ${apiUrl} (${failures} tries in a row; still retrying). Check this machine's network, DNS and proxy (HTTPS_PROXY), and SLACK_API_URL if you set it`,
      );
    },
    error: (...parts) => logger.error({ source: 'bolt' }, text(parts)),
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => {},
  };
}
