import { randomBytes } from 'node:crypto';
import type { AppToolResult, ChatEvent, Logger, McpView } from '@ai-assistant/host-core';
import type { Store } from '@ai-assistant/store';
import type { People } from '../people.js';
import {
  AppLinks,
  type AppViewRecords,
  isRefusal,
  linkLifetimeMs,
  type Refusal,
  sessionLifetimeMs,
  type ViewSession,
} from './links.js';

/** A `tool_view` event of a turn: a result with a view. */
export type ToolView = Extract<ChatEvent, { type: 'tool_view' }>;

/** How long a result's view can be opened. */
export const viewRetentionMs = 7 * 24 * 3_600_000;
/** Requests one page may make of its person's view (tools, resources, messages). */
export const maxRequestsPerSession = 500;
/** How long a write or a message waits for the person's answer on the page. */
const heldMs = 10 * 60_000;
/** The longest message an app may send to the conversation (after the person confirms it). */
const maxMessageCharacters = 3000;

/** A result with a view, as kept for its page: who asked, and what came back. */
export interface AppViewRecord
  extends Pick<ToolView, 'server' | 'tool' | 'resourceUri' | 'arguments' | 'summary' | 'result'> {
  workspace: string;
  asker: string;
  expiresAt: number;
}

/** Something the page must show the person before it happens: a write the app asks for, or a message. */
type Pending =
  | { kind: 'tool'; session: string; tool: string; arguments: Record<string, unknown> }
  | { kind: 'message'; session: string; text: string };

/** What a page's app asks of the host, answered through the person's view. */
export type PageRequest =
  | { method: 'init' }
  | { method: 'tools/call'; params: { name?: unknown; arguments?: unknown } }
  | { method: 'resources/read'; params: { uri?: unknown } }
  | { method: 'resources/list' }
  | { method: 'ui/message'; params: { text?: unknown } }
  | { method: 'decide'; params: { id?: unknown; allow?: unknown } };

/** Where an app's message goes once the person confirms it, in the page's words. */
export interface AppMessageTarget {
  /** The question over the message ("The page wants to post this in the Slack thread as you:"). */
  prompt: string;
  /** The button that sends it ("Post"). */
  button: string;
}

export interface AppViewServiceOptions<Kept extends AppViewRecord = AppViewRecord> {
  /** Sealed records (the store's `sealed`, or memory in a one-process app): views, links, sessions, held answers. */
  sealed: AppViewRecords;
  /** Where each call the page makes is recorded; absent: not audited. */
  audit?: Pick<Store['audit'], 'record'>;
  people: Pick<People, 'viewFor'>;
  logger: Logger;
  /** How a person gets a new link, in the words of the app ("Press Open in Slack again for a new one"). */
  again: string;
  /**
   * Where a confirmed message goes; absent: the page cannot send messages. `deliver` (or a subclass's
   * `deliverMessage`) takes the message the person confirmed; it resolves with `{ error }` when it could not.
   */
  message?: AppMessageTarget & {
    deliver?(session: ViewSession, record: Kept, text: string): Promise<{ error?: string }>;
  };
  now?: () => Date;
}

/**
 * The page of an MCP Apps view, for any app that serves it: records of results with a view, the
 * signed single-use links and sessions that open them, and the page's requests answered through the
 * session person's own view of MCP (their credentials, workspace, approvals in the page, audit).
 */
export class AppViewService<Kept extends AppViewRecord = AppViewRecord> {
  readonly links: AppLinks;
  private readonly now: () => Date;
  /** When this process last deleted expired links, sessions, held answers and views. */
  private prunedAt = 0;
  /** Requests made by each page this process served (a cap per page, not a shared count). */
  private readonly requests = new Map<string, number>();

  constructor(private readonly options: AppViewServiceOptions<Kept>) {
    this.now = options.now ?? (() => new Date());
    this.links = new AppLinks(options.sealed, this.now, options.again);
  }

  /**
   * Keeps a result with a view for {@link viewRetentionMs}; resolves with its id (for a link), or
   * undefined when it could not be kept (logged).
   */
  async keep(
    place: Omit<Kept, keyof AppViewRecord> & { workspace: string; asker: string },
    view: ToolView,
  ): Promise<{ id: string; record: Kept } | undefined> {
    this.pruneNow();
    const id = randomBytes(16).toString('base64url');
    const record = {
      ...place,
      server: view.server,
      tool: view.tool,
      resourceUri: view.resourceUri,
      arguments: view.arguments,
      summary: summaryOf(view.summary),
      ...(view.result ? { result: view.result } : {}),
      expiresAt: this.now().getTime() + viewRetentionMs,
    } as Kept;
    try {
      await this.options.sealed.put('app-view', id, { workspace: place.workspace }, JSON.stringify(record));
      return { id, record };
    } catch (error) {
      this.options.logger.warn({ error: String(error) }, 'could not keep a result’s view; no page for it');
      return undefined;
    }
  }

  /** A page's request, through the view of the session's person. */
  async handle(session: ViewSession, request: PageRequest): Promise<unknown> {
    const count = (this.requests.get(session.key) ?? 0) + 1;
    if (this.requests.size > 10_000) this.requests.clear();
    this.requests.set(session.key, count);
    if (count > maxRequestsPerSession)
      return {
        error: `This page made more than ${maxRequestsPerSession} requests. ${this.options.again}.`,
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
        if (!this.options.message) return { error: 'This page cannot send messages.' };
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
  private async init(session: ViewSession, record: Kept, view: McpView): Promise<unknown> {
    const mine = session.user === record.asker && session.workspace === record.workspace;
    const base = {
      ...(this.options.message
        ? { message: { prompt: this.options.message.prompt, button: this.options.message.button } }
        : {}),
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
  private async whyNot(view: McpView, record: Kept): Promise<string | undefined> {
    try {
      await view.callAppTool(record.server, record.tool, record.arguments);
      return undefined;
    } catch (error) {
      return refusalOf(error, view, record.server);
    }
  }

  private async callTool(
    session: ViewSession,
    record: Kept,
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
    record: Kept,
    view: McpView,
    params: { id?: unknown; allow?: unknown },
  ): Promise<unknown> {
    const id = typeof params?.id === 'string' && /^[\w-]{16}$/.test(params.id) ? params.id : '';
    const raw = id ? await this.options.sealed.get('app-pending', id) : undefined;
    const held = raw ? (JSON.parse(raw) as Pending & { expiresAt: number }) : undefined;
    // Answered once: of two answers, only the one that takes it from the store goes on.
    if (
      !held ||
      held.session !== session.key ||
      held.expiresAt <= this.now().getTime() ||
      !(await this.options.sealed.delete('app-pending', id))
    )
      return { error: 'Nothing is waiting for this answer (it expired, or was answered).' };
    const allow = params.allow === true;
    if (held.kind === 'message') {
      if (!allow) return { result: { isError: true } };
      const delivered = await this.deliverMessage(session, record, held.text);
      return delivered.error ? { error: delivered.error } : { result: {} };
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
    await this.options.audit
      ?.record({
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

  /** Sends a message the person confirmed where the app's messages go. */
  protected async deliverMessage(
    session: ViewSession,
    record: Kept,
    text: string,
  ): Promise<{ error?: string }> {
    const deliver = this.options.message?.deliver;
    return deliver ? deliver(session, record, text) : { error: 'This page cannot send messages.' };
  }

  /** At most hourly: what has expired leaves the store (links, sessions, held answers, views). */
  private pruneNow(): void {
    const now = this.now().getTime();
    if (now - this.prunedAt < 3_600_000) return;
    this.prunedAt = now;
    const prune = this.options.sealed.prune?.bind(this.options.sealed);
    if (!prune) return;
    void Promise.all([
      prune('app-link', new Date(now - linkLifetimeMs)),
      prune('app-pending', new Date(now - heldMs)),
      prune('app-session', new Date(now - sessionLifetimeMs)),
      prune('app-view', new Date(now - viewRetentionMs)),
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
    await this.options.sealed.put(
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
    record: Kept,
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
  async record(id: string): Promise<Kept | undefined> {
    if (!/^[\w-]{10,40}$/.test(id)) return undefined;
    const raw = await this.options.sealed.get('app-view', id);
    const record = raw ? (JSON.parse(raw) as Kept) : undefined;
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
    return `You have not connected ${server}: connect it with ${view.credentialHint?.(server) ?? `connect ${server}`}, then open the view again.`;
  if (code === 'TOOL_NOT_FOUND')
    return `Your workspace does not offer ${server}, so this page cannot be shown to you.`;
  return view.redact(error instanceof Error ? error.message : String(error));
}
