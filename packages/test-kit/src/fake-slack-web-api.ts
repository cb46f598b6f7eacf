// The fake Slack's Web API: each method answered as Slack would, from and into the recorded state, and
// the HTTP requests it comes in (plus what the app posts to slash commands' response_url).
import type { IncomingMessage, RequestListener } from 'node:http';
import { invalidBlocks, invalidChunks, streamedTasks, streamedText } from './fake-slack-blocks.js';
import type { FakeSlackFiles } from './fake-slack-files.js';
import type { HistoryLimiter } from './fake-slack-history.js';
import { botUserId, type SlackState } from './fake-slack-state.js';
import type { FakeWorkspace } from './fake-slack-types.js';

type Args = Record<string, unknown>;
type Answer = Record<string, unknown>;

/** The bot id Slack gives the app in a workspace. */
const botIdIn = (workspace: FakeWorkspace) => workspace.botId ?? `B_${workspace.team}`;

/** Slack's rules for `oauth.v2.access`: the app's own credentials, a code issued for it, used once. */
function oauthAccess(state: SlackState, args: Args): Answer {
  const app = state.oauthApp;
  if (!app || args.client_id !== app.clientId) return { ok: false, error: 'invalid_client_id' };
  if (args.client_secret !== app.clientSecret) return { ok: false, error: 'bad_client_secret' };
  const installed = state.codes.get(String(args.code ?? ''));
  if (!installed) return { ok: false, error: 'invalid_code' };
  state.codes.delete(String(args.code));
  return {
    ok: true,
    app_id: 'A0001',
    authed_user: { id: 'UINSTALLER' },
    scope: 'app_mentions:read,chat:write,commands',
    token_type: 'bot',
    access_token: installed.botToken,
    bot_user_id: installed.botUserId,
    team: installed.orgWide ? null : { id: installed.team, name: installed.team },
    enterprise: installed.enterprise ? { id: installed.enterprise, name: installed.enterprise } : null,
    is_enterprise_install: installed.orgWide === true,
  };
}

/**
 * With workspaces added, only the tokens Slack issued are accepted, and `auth.test` answers for the
 * token's workspace; undefined lets the call go on.
 */
function authorize(state: SlackState, method: string, token: string | undefined): Answer | undefined {
  if (state.workspaces.size === 0) return undefined;
  const workspace = state.byToken(token);
  if (!token) return { ok: false, error: 'not_authed' };
  if (!workspace) return { ok: false, error: 'invalid_auth' };
  if (method !== 'auth.test') return undefined;
  return {
    ok: true,
    user_id: workspace.botUserId,
    bot_id: botIdIn(workspace),
    user: 'assistant',
    team_id: workspace.orgWide ? undefined : workspace.team,
    enterprise_id: workspace.enterprise,
    is_enterprise_install: workspace.orgWide === true,
    url: 'https://example.slack.com/',
  };
}

/** `chat.postMessage` and `chat.startStream`: a new message from the token's bot. */
function post(state: SlackState, method: string, args: Args, token: string | undefined): Answer {
  const channel = String(args.channel ?? '');
  // As Slack: a stream outside a DM must name its recipient.
  if (method === 'chat.startStream' && !channel.startsWith('D')) {
    if (!args.recipient_user_id) return { ok: false, error: 'missing_recipient_user_id' };
    if (!args.recipient_team_id) return { ok: false, error: 'missing_recipient_team_id' };
  }
  if (invalidBlocks(args.blocks)) return { ok: false, error: 'invalid_blocks' };
  if (method === 'chat.startStream' && invalidChunks(args.chunks))
    return { ok: false, error: 'invalid_chunks' };
  const ts = state.nextTs();
  const poster = state.byToken(token);
  state.messages(channel).push({
    ts,
    user: poster?.botUserId ?? botUserId,
    bot_id: poster ? botIdIn(poster) : 'BBOT0001',
    text: method === 'chat.postMessage' ? String(args.text ?? '') : streamedText(args),
    ...(Array.isArray(args.blocks) ? { blocks: args.blocks } : {}),
    ...(args.thread_ts ? { thread_ts: String(args.thread_ts) } : {}),
    ...(method === 'chat.startStream' ? { streaming: true, tasks: streamedTasks(args) } : {}),
  });
  return { ok: true, channel, ts, message: { ts } };
}

/** `chat.update`, `chat.appendStream` and `chat.stopStream`: a change to a message already posted. */
function edit(state: SlackState, method: string, args: Args): Answer {
  const channel = String(args.channel ?? '');
  const stored = state.messages(channel).find((message) => message.ts === args.ts);
  if (!stored) return { ok: false, error: 'message_not_found' };
  if (invalidBlocks(args.blocks)) return { ok: false, error: 'invalid_blocks' };
  if (method === 'chat.appendStream' && args.markdown_text === undefined && args.chunks === undefined)
    return { ok: false, error: 'invalid_arguments' };
  if (method !== 'chat.update') {
    // A stream takes appends until it is stopped, and only a stream does.
    if (!stored.streaming) return { ok: false, error: 'message_not_in_streaming_state' };
    if (invalidChunks(args.chunks)) return { ok: false, error: 'invalid_chunks' };
    stored.tasks = [...(stored.tasks ?? []), ...streamedTasks(args)];
    if (method === 'chat.stopStream') {
      stored.streaming = false;
      if (Array.isArray(args.blocks)) stored.blocks = args.blocks;
    }
  }
  stored.text = method === 'chat.update' ? String(args.text ?? '') : `${stored.text}${streamedText(args)}`;
  // chat.update replaces the blocks: none given means none left.
  if (method === 'chat.update') stored.blocks = Array.isArray(args.blocks) ? args.blocks : [];
  return { ok: true, channel, ts: stored.ts };
}

/**
 * `conversations.replies` as Slack: oldest/latest bound the replies (exclusive unless `inclusive`),
 * `limit` caps a page (at most 1 000, and `pageCap` here), oldest first; the parent carries `reply_users`.
 */
function replies(state: SlackState, args: Args, pageCap: number): Answer {
  const root = String(args.ts);
  const inclusive = args.inclusive === true || args.inclusive === 'true' || args.inclusive === '1';
  const after = (ts: string, bound: unknown) =>
    bound === undefined || (inclusive ? Number(ts) >= Number(bound) : Number(ts) > Number(bound));
  const before = (ts: string, bound: unknown) =>
    bound === undefined || (inclusive ? Number(ts) <= Number(bound) : Number(ts) < Number(bound));
  const thread = state.thread(String(args.channel ?? ''), root);
  const all = thread
    .filter((message) => after(message.ts, args.oldest) && before(message.ts, args.latest))
    .map((message) =>
      message.ts === root
        ? {
            ...message,
            reply_count: thread.length - 1,
            reply_users: [
              ...new Set(thread.filter((reply) => reply.ts !== root).map((reply) => reply.user)),
            ].filter(Boolean),
          }
        : message,
    );
  const size = Math.min(Math.max(1, Number(args.limit ?? 1000)), 1000, pageCap);
  const start = Number(args.cursor ?? 0);
  const page = all.slice(start, start + size);
  const next = start + size < all.length ? String(start + size) : '';
  return { ok: true, messages: page, has_more: next !== '', response_metadata: { next_cursor: next } };
}

/**
 * The Web API: answers a method called with `args` and `token`. `socketUrl` is where
 * `apps.connections.open` sends the app; `repliesPageCap` caps `conversations.replies` pages.
 */
export function webApi(
  state: SlackState,
  {
    socketUrl,
    repliesPageCap,
    files,
    baseUrl,
  }: { socketUrl: () => string; repliesPageCap: number; files: FakeSlackFiles; baseUrl: () => string },
): (method: string, args: Args, token?: string) => Answer {
  return (method, args, token) => {
    const failure = state.failures.findIndex(([name]) => name === method);
    if (failure !== -1) {
      const [, error] = state.failures.splice(failure, 1)[0] as [string, string];
      return { ok: false, error };
    }
    if (method === 'oauth.v2.access') return oauthAccess(state, args);
    const refused = authorize(state, method, token);
    if (refused) return refused;
    switch (method) {
      case 'auth.test':
        return {
          ok: true,
          user_id: botUserId,
          bot_id: 'BBOT0001',
          user: 'assistant',
          team_id: 'T0001',
          team: 'Test',
        };
      case 'apps.connections.open':
        return { ok: true, url: socketUrl() };
      case 'chat.postMessage':
      case 'chat.startStream':
        return post(state, method, args, token);
      case 'chat.update':
      case 'chat.appendStream':
      case 'chat.stopStream':
        return edit(state, method, args);
      case 'assistant.threads.setStatus':
      case 'assistant.threads.setSuggestedPrompts':
      case 'assistant.threads.setTitle':
        // As Slack: these name the assistant thread by channel_id and thread_ts; an agent app
        // (agent_view) sets its DM's suggested prompts by channel_id alone.
        if (!args.channel_id || (!args.thread_ts && method !== 'assistant.threads.setSuggestedPrompts'))
          return { ok: false, error: 'invalid_arguments' };
        if (method === 'assistant.threads.setStatus' && typeof args.status !== 'string')
          return { ok: false, error: 'invalid_arguments' };
        return { ok: true };
      case 'users.info': {
        const user = String(args.user);
        const person = state.people.get(user);
        return {
          ok: true,
          user: {
            id: args.user,
            name: user,
            team_id: state.teamOf(args.user),
            is_admin: person?.admin ?? false,
            is_owner: person?.owner ?? false,
            ...(args.include_locale ? { locale: state.userLocales.get(user) ?? 'ja-JP' } : {}),
          },
        };
      }
      case 'chat.postEphemeral':
        return { ok: true, message_ts: state.nextTs() };
      case 'views.publish': {
        // As Slack: a home tab view for one user; a view of over 100 blocks is refused.
        const view = args.view as { type?: string; blocks?: unknown[] } | undefined;
        if (!args.user_id || view?.type !== 'home') return { ok: false, error: 'invalid_arguments' };
        if ((view.blocks?.length ?? 0) > 100)
          return {
            ok: false,
            error: 'invalid_arguments',
            response_metadata: {
              messages: ['[ERROR] no more than 100 items allowed [json-pointer:/view/blocks]'],
            },
          };
        return { ok: true, view: { id: `V${state.nextTs()}`, ...view } };
      }
      case 'views.open': {
        if (!args.trigger_id) return { ok: false, error: 'invalid_trigger_id' };
        const problem = modalProblem(args.view);
        if (problem)
          return { ok: false, error: 'invalid_arguments', response_metadata: { messages: [problem] } };
        return { ok: true, view: { id: `V${state.nextTs()}` } };
      }
      case 'views.update': {
        // As Slack: the view to update is named by view_id or external_id.
        if (!args.view_id && !args.external_id) return { ok: false, error: 'invalid_arguments' };
        const problem = modalProblem(args.view);
        if (problem)
          return { ok: false, error: 'invalid_arguments', response_metadata: { messages: [problem] } };
        return { ok: true, view: { id: String(args.view_id ?? `V${state.nextTs()}`) } };
      }
      case 'chat.delete': {
        const list = state.messages(String(args.channel ?? ''));
        const index = list.findIndex((message) => message.ts === args.ts);
        if (index !== -1) list.splice(index, 1);
        return { ok: true };
      }
      case 'conversations.replies':
        return replies(state, args, repliesPageCap);
      case 'files.getUploadURLExternal':
        return files.getUploadURL(args, baseUrl()) as Answer;
      case 'files.completeUploadExternal':
        return files.complete(args) as Answer;
      default:
        return { ok: true };
    }
  };
}

async function readBody(request: IncomingMessage): Promise<Args> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return {};
  if ((request.headers['content-type'] ?? '').includes('json')) return JSON.parse(text) as Args;
  const form = Object.fromEntries(new URLSearchParams(text));
  // The WebClient form-encodes nested values as JSON strings.
  return Object.fromEntries(
    Object.entries(form).map(([key, value]) => {
      try {
        return [key, /^[[{]/.test(value) ? JSON.parse(value) : value];
      } catch {
        return [key, value];
      }
    }),
  );
}

/**
 * The HTTP side: `/api/<method>` calls are recorded and answered by `answer`; what is posted to
 * `/response/…` (a response_url) is kept in `responses`.
 */
export function httpHandler(
  state: SlackState,
  answer: ReturnType<typeof webApi>,
  files: FakeSlackFiles,
  limiter?: HistoryLimiter,
): RequestListener {
  return (request, response) => {
    if (files.upload(request, response)) return;
    // A bot token of a workspace the fake knows; any other xoxb- token is the default workspace's.
    const teamOfToken = (token: string | undefined) =>
      state.byToken(token)?.team ?? (token?.startsWith('xoxb-') ? 'T0001' : undefined);
    if (files.download(request, response, teamOfToken)) return;
    void (async () => {
      const args = await readBody(request);
      if (request.url?.startsWith('/response/')) {
        state.responses.push(args);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"ok":true}');
        return;
      }
      const method = (request.url ?? '').replace(/^\/api\//, '').split('?')[0] ?? '';
      const authorization = request.headers.authorization;
      const token = authorization?.replace(/^Bearer /, '') ?? (args.token as string | undefined);
      state.calls.push({ method, args, token, at: performance.now() });
      const retryAfter = limiter?.refuse(method, token);
      if (retryAfter !== undefined) {
        response.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(retryAfter) });
        response.end('{"ok":false,"error":"ratelimited"}');
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer(method, args, token)));
    })();
  };
}

/**
 * What Slack refuses in a modal (docs.slack.dev: views, block elements): a title or button label over
 * 24 characters, more than 100 blocks, a plain_text_input with max_length over 3000, a number_input
 * without is_decimal_allowed, an input block without an element.
 */
function modalProblem(raw: unknown): string | undefined {
  const view = (typeof raw === 'string' ? JSON.parse(raw) : raw) as
    | {
        type?: string;
        title?: { text?: string };
        submit?: { text?: string };
        close?: { text?: string };
        blocks?: Array<Record<string, unknown>>;
      }
    | undefined;
  if (view?.type !== 'modal') return '[ERROR] a modal view is expected [json-pointer:/view/type]';
  for (const field of ['title', 'submit', 'close'] as const)
    if ((view[field]?.text?.length ?? 0) > 24)
      return `[ERROR] must be less than 25 characters [json-pointer:/view/${field}/text]`;
  if ((view.blocks?.length ?? 0) > 100)
    return '[ERROR] no more than 100 items allowed [json-pointer:/view/blocks]';
  for (const [index, block] of (view.blocks ?? []).entries()) {
    if (block.type !== 'input') continue;
    const element = block.element as Record<string, unknown> | undefined;
    if (!element) return `[ERROR] missing required field: element [json-pointer:/view/blocks/${index}]`;
    if (element.type === 'plain_text_input' && Number(element.max_length ?? 0) > 3000)
      return `[ERROR] must be no more than 3000 [json-pointer:/view/blocks/${index}/element/max_length]`;
    if (element.type === 'number_input' && typeof element.is_decimal_allowed !== 'boolean')
      return `[ERROR] missing required field: is_decimal_allowed [json-pointer:/view/blocks/${index}/element]`;
  }
  return undefined;
}
