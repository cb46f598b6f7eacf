// The fake Slack's Web API: each method answered as Slack would, from and into the recorded state, and
// the HTTP requests it comes in (plus what the app posts to slash commands' response_url).
import type { IncomingMessage, RequestListener } from 'node:http';
import type { Answer, Args } from './fake-slack-auth.js';
import { authorize, botIdIn, oauthAccess } from './fake-slack-auth.js';
import { invalidBlocks, invalidChunks, streamedTasks, streamedText } from './fake-slack-blocks.js';
import type { FakeSlackFiles } from './fake-slack-files.js';
import type { HistoryLimiter } from './fake-slack-history.js';
import { modalProblem } from './fake-slack-modals.js';
import { botUserId, human, type SlackState } from './fake-slack-state.js';

/** `chat.postMessage` and `chat.startStream`: a new message from the token's bot. */
function post(state: SlackState, method: string, args: Args, token: string | undefined): Answer {
  let channel = String(args.channel ?? '');
  // As Slack: a user id as the channel posts in the app's direct message with that person.
  if (/^U[A-Z0-9]+$/.test(channel)) channel = directChannel(channel);
  const members = state.channelMembers.get(channel);
  if (members?.archived) return { ok: false, error: 'is_archived' };
  if (members && members.bot === false) return { ok: false, error: 'not_in_channel' };
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

/** A zone's offset from UTC now, in seconds (users.info's `tz_offset`). */
function tzOffsetSeconds(zone: string): number {
  const now = new Date();
  const local = new Date(now.toLocaleString('en-US', { timeZone: zone }));
  const utc = new Date(now.toLocaleString('en-US', { timeZone: 'UTC' }));
  return Math.round((local.getTime() - utc.getTime()) / 1000);
}

/** The direct message between the app and a person. */
const directChannel = (user: string) => `D${user.slice(1)}`;

/**
 * `conversations.members` as Slack: user ids in cursor pages (`limit` at most 999, default 100;
 * `invalid_limit` past it), `channel_not_found` for a channel the bot cannot see.
 */
function channelMembers(state: SlackState, args: Args): Answer {
  const channel = String(args.channel ?? '');
  const set = state.channelMembers.get(channel);
  const limit = Number(args.limit ?? 100);
  if (!Number.isInteger(limit) || limit < 1 || limit > 999) return { ok: false, error: 'invalid_limit' };
  if (set && set.bot === false) return { ok: false, error: 'channel_not_found' };
  const all = set ? set.members : [...new Set([human, ...state.people.keys()])];
  const start = Number(args.cursor ?? 0);
  const page = all.slice(start, start + limit);
  const next = start + limit < all.length ? String(start + limit) : '';
  return { ok: true, members: page, response_metadata: { next_cursor: next } };
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
            deleted: person?.deleted ?? false,
            tz: person?.tz ?? 'Asia/Tokyo',
            tz_offset: tzOffsetSeconds(person?.tz ?? 'Asia/Tokyo'),
            ...(args.include_locale ? { locale: state.userLocales.get(user) ?? 'ja-JP' } : {}),
          },
        };
      }
      case 'users.list':
        return {
          ok: true,
          members: [...state.people.entries()].map(([id, person]) => ({
            id,
            team_id: person.team ?? 'T0001',
            is_admin: person.admin ?? false,
            is_owner: person.owner ?? false,
            deleted: person.deleted ?? false,
            is_bot: false,
          })),
          response_metadata: { next_cursor: '' },
        };
      case 'conversations.open': {
        const users = String(args.users ?? '')
          .split(',')
          .filter(Boolean);
        if (users.length !== 1)
          return { ok: false, error: users.length ? 'not_implemented' : 'users_list_not_supplied' };
        return { ok: true, channel: { id: directChannel(users[0] as string) } };
      }
      case 'conversations.info': {
        const channel = String(args.channel ?? '');
        const set = state.channelMembers.get(channel);
        if (set && set.bot === false && !channel.startsWith('C'))
          return { ok: false, error: 'channel_not_found' };
        return {
          ok: true,
          channel: {
            id: channel,
            is_channel: channel.startsWith('C'),
            is_im: channel.startsWith('D'),
            is_archived: set?.archived ?? false,
            is_member: set?.bot ?? true,
            // As Slack: a DM names the person the app talks to there.
            ...(channel.startsWith('D') ? { user: `U${channel.slice(1)}` } : {}),
          },
        };
      }
      case 'conversations.members':
        return channelMembers(state, args);
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
