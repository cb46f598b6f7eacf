import type { Logger } from '@ai-assistant/host-core';
import type { App } from '@slack/bolt';

type WebClient = App['client'];

/** How a thread shows that an answer is being worked on, and receives it. */
export interface Progress {
  /** Messages of ours to leave out of the history (the placeholder). */
  readonly skipTs: string[];
  /** Shows what is happening now (a tool running). */
  status(text: string): void;
  /** Waits for status updates under way. */
  settled(): Promise<void>;
  /** Posts the answer, split in parts (the first replaces the placeholder). */
  finish(parts: string[]): Promise<void>;
  /** The answer was streamed as its own message: the placeholder goes. */
  discard(): Promise<void>;
  /** Posts a failure in plain words. */
  fail(text: string): Promise<void>;
}

/** Channels and DMs: a placeholder message, edited to the tool being run, then to the answer. */
export function placeholderProgress(
  client: WebClient,
  channel: string,
  threadTs: string,
  ts: string,
): Progress {
  let updates = Promise.resolve();
  const update = (text: string) => client.chat.update({ channel, ts, text });
  return {
    skipTs: [ts],
    status(text) {
      updates = updates.then(() => update(text).then(() => undefined)).catch(() => undefined);
    },
    settled: () => updates,
    async finish([first, ...rest]) {
      await update(first ?? '');
      for (const part of rest) await client.chat.postMessage({ channel, thread_ts: threadTs, text: part });
    },
    async discard() {
      await client.chat.delete({ channel, ts }).catch(() => undefined);
    },
    async fail(text) {
      await update(text);
    },
  };
}

/** When each assistant thread's status was last set: the one-call-a-second budget is per thread. */
const lastStatusAt = new Map<string, number>();

/** Sets an assistant thread's status now (the first word when a question arrives), within the budget. */
export function assistantStatus(
  client: WebClient,
  logger: Logger,
  channel: string,
  threadTs: string,
  status: string,
): Promise<void> {
  lastStatusAt.set(`${channel}:${threadTs}`, Date.now());
  if (lastStatusAt.size > 10_000) lastStatusAt.delete(lastStatusAt.keys().next().value as string);
  return assistantCall(logger, 'assistant.threads.setStatus', () =>
    client.assistant.threads.setStatus({ channel_id: channel, thread_ts: threadTs, status }),
  );
}

/** Teams whose workspace refused an assistant call: logged once each, never again. */
const refusedOnce = new Set<string>();

/**
 * Calls `assistant.threads.*` and never lets a failure stop the answer: a workspace without the
 * feature (or any error) is logged once per method and error.
 */
export async function assistantCall(
  logger: Logger,
  method: string,
  call: () => Promise<unknown>,
): Promise<void> {
  try {
    await call();
  } catch (error) {
    const code = (error as { data?: { error?: string } }).data?.error ?? String(error);
    const key = `${method}:${code}`;
    if (refusedOnce.has(key)) return;
    refusedOnce.add(key);
    logger.warn({ method, slackError: code }, 'Slack refused an assistant call; answering without it');
  }
}

/**
 * The assistant pane: `assistant.threads.setStatus` shows what happens ("考えています…", then the tool's
 * status message), at most one call a second (the newest text wins); the answer is a reply, which also
 * clears the status.
 */
export function assistantProgress(
  client: WebClient,
  logger: Logger,
  channel: string,
  threadTs: string,
  intervalMs = 1000,
): Progress {
  const thread = `${channel}:${threadTs}`;
  let pending: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let sending = Promise.resolve();
  const send = (status: string) => {
    lastStatusAt.set(thread, Date.now());
    sending = sending.then(() =>
      assistantCall(logger, 'assistant.threads.setStatus', () =>
        client.assistant.threads.setStatus({ channel_id: channel, thread_ts: threadTs, status }),
      ),
    );
  };
  const flush = () => {
    timer = undefined;
    if (pending === undefined) return;
    const text = pending;
    pending = undefined;
    send(text);
  };
  const stop = () => {
    clearTimeout(timer);
    timer = undefined;
    pending = undefined;
  };
  const post = async (text: string) => {
    stop();
    await sending;
    await client.chat.postMessage({ channel, thread_ts: threadTs, text });
  };
  return {
    skipTs: [],
    status(text) {
      pending = text;
      const wait = (lastStatusAt.get(thread) ?? 0) + intervalMs - Date.now();
      if (wait <= 0 && !timer) flush();
      else timer ??= setTimeout(flush, Math.max(0, wait));
    },
    settled: () => sending,
    async finish(parts) {
      for (const part of parts) await post(part);
    },
    async discard() {
      stop();
      await sending;
    },
    fail: post,
  };
}
