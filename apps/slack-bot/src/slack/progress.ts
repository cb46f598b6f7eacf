import type { Logger } from '@ai-assistant/host-core';
import type { App, types } from '@slack/bolt';

type KnownBlock = types.KnownBlock;

type WebClient = App['client'];

/** How a thread shows that an answer is being worked on, and receives it. */
export interface Progress {
  /** Messages of ours to leave out of the history (the placeholder). */
  readonly skipTs: string[];
  /** Shows what is happening now (a tool running). */
  status(text: string): void;
  /** Waits for status updates under way. */
  settled(): Promise<void>;
  /** Posts the answer, split in parts (the first replaces the placeholder); `blocks` go under the last. */
  finish(parts: string[], blocks?: KnownBlock[]): Promise<void>;
  /** The answer was streamed as its own message: the placeholder goes. */
  discard(): Promise<void>;
  /** Posts a failure in plain words. */
  fail(text: string): Promise<void>;
}

/** A section's text limit: a longer last part keeps its plain text, and the blocks go in a message of their own. */
const sectionTextLimit = 3000;

/**
 * Posts an answer's parts with `blocks` under the last (Slack shows a message's blocks instead of its
 * text, so the last part becomes a section): `first` is what the first part goes through.
 */
async function postParts(
  parts: string[],
  blocks: KnownBlock[] | undefined,
  first: (message: { text: string; blocks?: KnownBlock[] }) => Promise<unknown>,
  next: (message: { text: string; blocks?: KnownBlock[] }) => Promise<unknown>,
): Promise<void> {
  const last = parts.length - 1;
  for (const [index, text] of parts.entries()) {
    const send = index === 0 ? first : next;
    if (index === last && blocks?.length && text.length <= sectionTextLimit)
      await send({ text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }, ...blocks] });
    else await send({ text });
  }
  if (blocks?.length && (parts[last]?.length ?? 0) > sectionTextLimit) await next({ text: '⬆️', blocks });
}

/**
 * At most one status a `intervalMs` per thread, the newest text winning: a flood of tool progress
 * costs one Slack call a second, never one per notification.
 */
class StatusThrottle {
  private pending: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  sending = Promise.resolve();

  constructor(
    private readonly thread: string,
    private readonly intervalMs: number,
    private readonly send: (text: string) => Promise<void>,
  ) {}

  push(text: string): void {
    this.pending = text;
    const wait = (lastStatusAt.get(this.thread) ?? 0) + this.intervalMs - Date.now();
    if (wait <= 0 && !this.timer) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), Math.max(0, wait));
  }

  /** Drops what waits; resolves once what was sent is done. */
  stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = undefined;
    return this.sending;
  }

  private flush(): void {
    this.timer = undefined;
    if (this.pending === undefined) return;
    const text = this.pending;
    this.pending = undefined;
    lastStatusAt.set(this.thread, Date.now());
    if (lastStatusAt.size > 10_000) lastStatusAt.delete(lastStatusAt.keys().next().value as string);
    this.sending = this.sending.then(() => this.send(text)).catch(() => undefined);
  }
}

/** Channels and DMs: a placeholder message, edited to the tool being run, then to the answer. */
export function placeholderProgress(
  client: WebClient,
  channel: string,
  threadTs: string,
  ts: string,
  intervalMs = 1000,
): Progress {
  const update = (text: string) => client.chat.update({ channel, ts, text });
  const throttle = new StatusThrottle(`${channel}:${ts}`, intervalMs, async (text) => {
    await update(text);
  });
  return {
    skipTs: [ts],
    status: (text) => throttle.push(text),
    settled: () => throttle.sending,
    async finish(parts, blocks) {
      await throttle.stop();
      await postParts(
        parts.length > 0 ? parts : [''],
        blocks,
        (message) => client.chat.update({ channel, ts, ...message }),
        (message) => client.chat.postMessage({ channel, thread_ts: threadTs, ...message }),
      );
    },
    async discard() {
      await client.chat.delete({ channel, ts }).catch(() => undefined);
    },
    async fail(text) {
      await throttle.stop();
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
  const throttle = new StatusThrottle(`${channel}:${threadTs}`, intervalMs, (status) =>
    assistantCall(logger, 'assistant.threads.setStatus', () =>
      client.assistant.threads.setStatus({ channel_id: channel, thread_ts: threadTs, status }),
    ),
  );
  const post = async (text: string) => {
    await throttle.stop();
    await client.chat.postMessage({ channel, thread_ts: threadTs, text });
  };
  return {
    skipTs: [],
    status: (text) => throttle.push(text),
    settled: () => throttle.sending,
    async finish(parts, blocks) {
      await throttle.stop();
      const send = (message: { text: string; blocks?: KnownBlock[] }) =>
        client.chat.postMessage({ channel, thread_ts: threadTs, ...message });
      await postParts(parts, blocks, send, send);
    },
    async discard() {
      await throttle.stop();
    },
    fail: post,
  };
}
