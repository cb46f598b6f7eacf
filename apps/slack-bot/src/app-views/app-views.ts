import { randomBytes } from 'node:crypto';
import type { People } from '@ai-assistant/assistant';
import type { AppToolResult, ChatEvent, Logger, McpView } from '@ai-assistant/host-core';
import type { Store } from '@ai-assistant/store';
import type { App, types } from '@slack/bolt';

type KnownBlock = types.KnownBlock;

import { clipEscaped, escapeSlackText } from '../format/slack-text.js';
import {
  AppLinks,
  isRefusal,
  linkLifetimeMs,
  type Refusal,
  sessionLifetimeMs,
  type ViewSession,
} from './links.js';

type WebClient = App['client'];
type ToolView = Extract<ChatEvent, { type: 'tool_view' }>;

/** The action of the Open button under an answer whose tool has a view. */
export const appViewActions = { open: 'app_view_open' } as const;

/** How long a result's view can be opened from its thread. */
export const viewRetentionMs = 7 * 24 * 3_600_000;
/** Requests one page may make of its person's view (tools, resources, messages). */
export const maxRequestsPerSession = 500;
/** How long a write or a message waits for the person's answer on the page. */
const heldMs = 10 * 60_000;
/** The longest message an app may post in the thread (after the person confirms it). */
const maxMessageCharacters = 3000;

/** A result with a view, as kept for its Open button: where it was asked, by whom, and what came back. */
export interface ViewRecord {
  workspace: string;
  asker: string;
  channel: string;
  threadTs: string;
  server: string;
  tool: string;
  resourceUri: string;
  /** The arguments as shown (redacted). */
  arguments: Record<string, unknown>;
  summary: string;
  /** The asker's result as the server sent it (absent when too large: the page calls the tool again). */
  result?: AppToolResult;
  expiresAt: number;
}

/** Something the page must show the person before it happens: a write the app asks for, or a message. */
type Pending =
  | { kind: 'tool'; session: string; tool: string; arguments: Record<string, unknown> }
  | { kind: 'message'; session: string; text: string };

/** What a page's app asks of the bot, answered through the person's view. */
export type PageRequest =
  | { method: 'init' }
  | { method: 'tools/call'; params: { name?: unknown; arguments?: unknown } }
  | { method: 'resources/read'; params: { uri?: unknown } }
  | { method: 'resources/list' }
  | { method: 'ui/message'; params: { text?: unknown } }
  | { method: 'decide'; params: { id?: unknown; allow?: unknown } };

export interface AppViewsOptions {
  store: Pick<Store, 'sealed' | 'audit'>;
  people: Pick<People, 'viewFor'>;
  /** The bot's public URL (PUBLIC_URL): the page's address; without it, Open says why. */
  publicUrl: string | undefined;
  logger: Logger;
  /** The Web API client of a workspace (the app's own in one-workspace mode). */
  clientFor: (workspace: string) => Promise<WebClient | undefined>;
  /** Answers a message the app posted in the thread as the person's follow-up. */
  followUp?: (question: {
    channel: string;
    threadTs: string;
    messageTs: string;
    text: string;
    user: string;
    team: string;
    client: WebClient;
  }) => void;
  now?: () => Date;
}

/**
 * MCP Apps views of tool results, offered in Slack: an Open button under the answer, a personal,
 * signed, single-use link for whoever presses it, and the page's requests answered through that
 * person's own view of MCP (their credentials, workspace, approvals, audit).
 */
export class AppViews {
  readonly links: AppLinks;
  private readonly now: () => Date;
  /** When this replica last deleted expired links, sessions, held answers and views. */
  private prunedAt = 0;
  /** Requests made by each page this process served (a cap per page, not a shared count). */
  private readonly requests = new Map<string, number>();

  constructor(private readonly options: AppViewsOptions) {
    this.now = options.now ?? (() => new Date());
    this.links = new AppLinks(options.store.sealed, this.now);
  }

  /**
   * The blocks to put under an answer: one line per result with a view (its tool, server and the
   * start of what the model read) and an Open button. Each is kept in the store for {@link viewRetentionMs}.
   */
  async blocksFor(
    place: { channel: string; threadTs: string; workspace: string; asker: string },
    views: ToolView[],
  ): Promise<KnownBlock[]> {
    this.pruneNow();
    const blocks: KnownBlock[] = [];
    for (const view of views.slice(0, 5)) {
      const id = randomBytes(16).toString('base64url');
      const record: ViewRecord = {
        workspace: place.workspace,
        asker: place.asker,
        channel: place.channel,
        threadTs: place.threadTs,
        server: view.server,
        tool: view.tool,
        resourceUri: view.resourceUri,
        arguments: view.arguments,
        summary: summaryOf(view.summary),
        ...(view.result ? { result: view.result } : {}),
        expiresAt: this.now().getTime() + viewRetentionMs,
      };
      try {
        await this.options.store.sealed.put(
          'app-view',
          id,
          { workspace: place.workspace },
          JSON.stringify(record),
        );
      } catch (error) {
        this.options.logger.warn({ error: String(error) }, 'could not keep a result’s view; no Open for it');
        continue;
      }
      blocks.push({
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `🖼️ *${clipEscaped(escapeSlackText(view.tool), 100)}* (${clipEscaped(escapeSlackText(view.server), 60)}): ${clipEscaped(escapeSlackText(record.summary), 300)}`,
        },
        accessory: {
          type: 'button',
          action_id: appViewActions.open,
          text: { type: 'plain_text', text: 'Open' },
          value: id,
        },
      });
    }
    if (blocks.length > 0)
      blocks.push({
        type: 'context',
        elements: [
          {
            type: 'mrkdwn',
            text: 'Open shows a result as its server’s page, to whoever presses it, with their own access.',
          },
        ],
      });
    return blocks;
  }

  /**
   * Open was pressed: a link for the person who pressed it (an ephemeral message only they see), or
   * why there is none.
   */
  async pressed(
    person: { workspace: string; user: string },
    viewId: string,
  ): Promise<{ url?: string; text: string }> {
    if (!this.options.publicUrl)
      return {
        text: 'This page cannot be opened: the bot has no public address. The operator sets PUBLIC_URL (the address of the bot’s HTTP server, as for Connect links).',
      };
    const record = await this.record(viewId);
    if (!record) return { text: 'This result’s page is no longer kept. Ask again for a new one.' };
    const token = await this.links.issue(viewId, person);
    const url = `${this.options.publicUrl}/apps/open?t=${token}`;
    const whose =
      person.user === record.asker && person.workspace === record.workspace
        ? 'your result'
        : 'this view with your own access (the tool runs again for you)';
    return {
      url,
      text: `Your link to ${whose}: it works once, in one browser, for 10 minutes. Do not forward it.`,
    };
  }

  /** A page's request, through the view of the session's person. */
  async handle(session: ViewSession, request: PageRequest): Promise<unknown> {
    const count = (this.requests.get(session.key) ?? 0) + 1;
    if (this.requests.size > 10_000) this.requests.clear();
    this.requests.set(session.key, count);
    if (count > maxRequestsPerSession)
      return {
        error: `This page made more than ${maxRequestsPerSession} requests. Press Open in Slack again.`,
      };
    const record = await this.record(session.view);
    if (!record) return { error: 'This result’s page is no longer kept.' };
    const view = await this.options.people.viewFor({ workspace: session.workspace, user: session.user });
    if (!view) return { error: 'MCP is off for this bot.' };
    switch (request.method) {
      case 'init':
        return this.init(session, record, view);
      case 'tools/call':
        return this.callTool(session, record, view, request.params);
      case 'resources/read': {
        const uri = typeof request.params?.uri === 'string' ? request.params.uri : '';
        if (!uri) return { error: 'resources/read needs a uri.' };
        return { result: await view.readAppResource(record.server, uri) };
      }
      case 'resources/list':
        return {
          result: {
            resources: view
              .listResources()
              .filter((entry) => entry.server === record.server)
              .map((entry) => ({
                uri: entry.uri,
                name: entry.name,
                ...(entry.mimeType ? { mimeType: entry.mimeType } : {}),
              })),
          },
        };
      case 'ui/message': {
        const text = typeof request.params?.text === 'string' ? request.params.text.trim() : '';
        if (!text) return { error: 'The app’s message has no text.' };
        const shown = text.slice(0, maxMessageCharacters);
        return {
          confirm: await this.hold(session, { kind: 'message', session: session.key, text: shown }),
          text: shown,
        };
      }
      case 'decide':
        return this.decide(session, record, view, request.params);
      default:
        return { error: 'Unknown request.' };
    }
  }

  /** The view's page, the asker's result or the tool called again for this person (or why not). */
  private async init(session: ViewSession, record: ViewRecord, view: McpView): Promise<unknown> {
    const mine = session.user === record.asker && session.workspace === record.workspace;
    const base = {
      server: record.server,
      tool: record.tool,
      arguments: record.arguments,
      user: session.user,
      asker: record.asker,
    };
    const tool = view.appTool(record.server, record.tool);
    if (!tool)
      return {
        ...base,
        refusal: (await this.whyNot(view, record)) ?? `Your workspace does not offer ${record.server}.`,
      };
    const resource = await view.readAppResource(record.server, record.resourceUri).catch(() => undefined);
    const meta = resource?.contents[0]?._meta as { ui?: { permissions?: unknown } } | undefined;
    const permissions = meta?.ui?.permissions ?? {};
    if (mine && record.result) return { ...base, permissions, result: record.result };
    // Another person (or a result too large to keep): the tool runs again, as them. A tool that
    // changes things is not run again on someone else's behalf.
    if (tool.needsApproval)
      return {
        ...base,
        refusal: mine
          ? `${record.tool}'s result was too large to keep, and the tool changes things, so it is not run again from here. Ask the assistant again.`
          : `${record.tool} changes things, so it is not run again for you from someone else’s result. Ask the assistant yourself.`,
      };
    const ran = await this.run(session, view, record.server, record.tool, record.arguments);
    return isRefusal(ran) ? { ...base, refusal: ran.refused } : { ...base, permissions, result: ran.result };
  }

  /**
   * Why this person's view has no such tool: a per-person server they have not connected, or none.
   * `callAppTool` refuses before reaching any server when `appTool` has none, so nothing runs here.
   */
  private async whyNot(view: McpView, record: ViewRecord): Promise<string | undefined> {
    try {
      await view.callAppTool(record.server, record.tool, record.arguments);
      return undefined;
    } catch (error) {
      return refusalOf(error, view, record.server);
    }
  }

  private async callTool(
    session: ViewSession,
    record: ViewRecord,
    view: McpView,
    params: { name?: unknown; arguments?: unknown },
  ): Promise<unknown> {
    const name = typeof params?.name === 'string' ? params.name : '';
    const args =
      params?.arguments && typeof params.arguments === 'object'
        ? (params.arguments as Record<string, unknown>)
        : {};
    const tool = view.appTool(record.server, name);
    if (!tool) return { error: `${record.server} has no tool ${name} this page may call.` };
    if (tool.needsApproval) {
      const shown = view.redact(args);
      return {
        confirm: await this.hold(session, {
          kind: 'tool',
          session: session.key,
          tool: name,
          arguments: args,
        }),
        tool: name,
        server: record.server,
        arguments: shown,
      };
    }
    const ran = await this.run(session, view, record.server, name, args);
    return isRefusal(ran) ? { result: errorResult(ran.refused) } : { result: ran.result };
  }

  /** The person's answer to a held write or message. A refused write does not run, and is audited. */
  private async decide(
    session: ViewSession,
    record: ViewRecord,
    view: McpView,
    params: { id?: unknown; allow?: unknown },
  ): Promise<unknown> {
    const id = typeof params?.id === 'string' && /^[\w-]{16}$/.test(params.id) ? params.id : '';
    const raw = id ? await this.options.store.sealed.get('app-pending', id) : undefined;
    const held = raw ? (JSON.parse(raw) as Pending & { expiresAt: number }) : undefined;
    // Answered once: of two answers, only the one that takes it from the store goes on.
    if (
      !held ||
      held.session !== session.key ||
      held.expiresAt <= this.now().getTime() ||
      !(await this.options.store.sealed.delete('app-pending', id))
    )
      return { error: 'Nothing is waiting for this answer (it expired, or was answered).' };
    const allow = params.allow === true;
    if (held.kind === 'message') {
      if (!allow) return { result: { isError: true } };
      return this.post(session, record, held.text);
    }
    if (!allow) {
      await this.audit(session, record.server, held.tool, view.redact(held.arguments), 'denied', 0);
      return { result: errorResult('The person refused this action; it did not run.') };
    }
    const ran = await this.run(session, view, record.server, held.tool, held.arguments, this.now());
    return isRefusal(ran) ? { result: errorResult(ran.refused) } : { result: ran.result };
  }

  /** Runs a tool through the person's view, audited; a failure is a refusal the app and person read. */
  private async run(
    session: ViewSession,
    view: McpView,
    server: string,
    tool: string,
    args: Record<string, unknown>,
    approvedAt?: Date,
  ): Promise<{ result: AppToolResult } | Refusal> {
    const started = performance.now();
    const shown = view.redact(args);
    try {
      const outcome = await view.callAppTool(server, tool, args);
      await this.audit(
        session,
        server,
        tool,
        shown,
        outcome.isError ? 'error' : 'ok',
        performance.now() - started,
        approvedAt,
      );
      return {
        result: outcome.app?.result ?? {
          content: [{ type: 'text', text: outcome.text }],
          isError: outcome.isError,
        },
      };
    } catch (error) {
      await this.audit(session, server, tool, shown, 'error', performance.now() - started, approvedAt);
      return { refused: refusalOf(error, view, server) };
    }
  }

  private async audit(
    session: ViewSession,
    server: string,
    tool: string,
    shown: Record<string, unknown>,
    outcome: 'ok' | 'error' | 'denied',
    durationMs: number,
    approvedAt?: Date,
  ): Promise<void> {
    await this.options.store.audit
      .record({
        kind: 'tool_call',
        at: this.now(),
        workspace: session.workspace,
        person: session.user,
        server,
        tool,
        arguments: JSON.stringify(shown).slice(0, 2000),
        ...(approvedAt ? { approval: { by: session.user, at: approvedAt } } : {}),
        outcome,
        durationMs,
      })
      .catch((error: unknown) =>
        this.options.logger.warn({ tool, error: String(error) }, 'audit entry not recorded'),
      );
  }

  /** Posts the app's message in the thread as the person's follow-up, which the bot then answers. */
  private async post(session: ViewSession, record: ViewRecord, text: string): Promise<unknown> {
    const client = await this.options.clientFor(session.workspace);
    if (!client || session.workspace !== record.workspace)
      return { error: 'The message could not be posted: the thread is in another workspace.' };
    const posted = await client.chat.postMessage({
      channel: record.channel,
      thread_ts: record.threadTs,
      text: `<@${session.user}> (from the ${escapeSlackText(record.tool)} page): ${escapeSlackText(text)}`,
    });
    this.options.followUp?.({
      channel: record.channel,
      threadTs: record.threadTs,
      messageTs: posted.ts as string,
      text,
      user: session.user,
      team: session.workspace,
      client,
    });
    return { result: {} };
  }

  /** At most hourly: what has expired leaves the store (links, sessions, held answers, views). */
  private pruneNow(): void {
    const now = this.now().getTime();
    if (now - this.prunedAt < 3_600_000) return;
    this.prunedAt = now;
    const sealed = this.options.store.sealed;
    void Promise.all([
      sealed.prune('app-link', new Date(now - linkLifetimeMs)),
      sealed.prune('app-pending', new Date(now - heldMs)),
      sealed.prune('app-session', new Date(now - sessionLifetimeMs)),
      sealed.prune('app-view', new Date(now - viewRetentionMs)),
    ]).catch((error: unknown) =>
      this.options.logger.warn({ error: String(error) }, 'could not delete expired App view records'),
    );
  }

  /**
   * Holds a write or a message until the person answers on the page (for 10 minutes), in the store:
   * the answer may reach another replica.
   */
  private async hold(session: ViewSession, pending: Pending): Promise<string> {
    const id = randomBytes(12).toString('base64url');
    const expiresAt = this.now().getTime() + heldMs;
    await this.options.store.sealed.put(
      'app-pending',
      id,
      { workspace: session.workspace },
      JSON.stringify({ ...pending, expiresAt }),
    );
    return id;
  }

  /** The app's HTML and its declared CSP, read through the person's view (never a model's). */
  async viewHtml(
    session: ViewSession,
    record: ViewRecord,
  ): Promise<{ html: string; csp?: unknown } | { error: string }> {
    const view = await this.options.people.viewFor({ workspace: session.workspace, user: session.user });
    if (!view) return { error: 'MCP is off for this bot.' };
    const resource = await view
      .readAppResource(record.server, record.resourceUri)
      .catch((error: unknown) => ({
        error: refusalOf(error, view, record.server),
      }));
    if ('error' in resource) return resource;
    const content =
      resource.contents.find((entry) => entry.uri === record.resourceUri) ?? resource.contents[0];
    const text =
      content?.text ?? (content?.blob ? Buffer.from(content.blob, 'base64').toString('utf8') : undefined);
    if (!text) return { error: `${record.server} sent no HTML for ${record.resourceUri}.` };
    const meta = content?._meta as { ui?: { csp?: unknown } } | undefined;
    return { html: text, ...(meta?.ui?.csp ? { csp: meta.ui.csp } : {}) };
  }

  /** A kept view record; undefined when none or expired. */
  async record(id: string): Promise<ViewRecord | undefined> {
    if (!/^[\w-]{10,40}$/.test(id)) return undefined;
    const raw = await this.options.store.sealed.get('app-view', id);
    const record = raw ? (JSON.parse(raw) as ViewRecord) : undefined;
    return record && record.expiresAt > this.now().getTime() ? record : undefined;
  }

  /** The session of a page request, or why not. */
  session(...args: Parameters<AppLinks['session']>): Promise<ViewSession | Refusal> {
    return this.links.session(...args);
  }
}

export { isRefusal };

/** The first line of what the model read, short. */
function summaryOf(text: string): string {
  const line = text.split('\n').find((candidate) => candidate.trim()) ?? '';
  const trimmed = line.trim();
  return trimmed.length > 200 ? `${trimmed.slice(0, 199)}…` : trimmed;
}

/** A tool result that says why the call did not run (the app reads it as a failed call). */
function errorResult(text: string): AppToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** A failed call in words for the person: how to connect a per-person server, or what failed. */
function refusalOf(error: unknown, view: McpView, server: string): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'MISSING_CREDENTIALS')
    return `You have not connected ${server}: connect it with ${view.credentialHint?.(server) ?? `connect ${server}`}, then press Open again.`;
  if (code === 'TOOL_NOT_FOUND')
    return `Your workspace does not offer ${server}, so this page cannot be shown to you.`;
  return view.redact(error instanceof Error ? error.message : String(error));
}
