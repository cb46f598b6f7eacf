import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type WebSocket, WebSocketServer } from 'ws';
import { listenOnLoopback } from './ports.js';

/** One Web API call the app made. */
export interface ApiCall {
  method: string;
  args: Record<string, unknown>;
  token: string | undefined;
}

export interface StoredMessage {
  ts: string;
  user?: string;
  bot_id?: string;
  text: string;
  thread_ts?: string;
  blocks?: unknown[];
}

/** A workspace the fake Slack lets the app be installed in. */
export interface FakeWorkspace {
  team: string;
  botToken: string;
  botUserId: string;
  botId?: string;
  /** Its Enterprise Grid organisation; with `orgWide`, the install is the organisation's. */
  enterprise?: string;
  orgWide?: boolean;
}

/**
 * A loopback Slack: the Web API over HTTP (`slackApiUrl` points Bolt's WebClient here) and a Socket
 * Mode WebSocket that pushes `events_api` envelopes. Messages the app posts are kept per thread, so
 * `conversations.replies` answers like Slack would.
 */
export interface FakeSlack {
  apiUrl: string;
  calls: ApiCall[];
  acks: string[];
  /** Adds a human message (to a channel or a thread) and returns its ts. */
  say(channel: string, text: string, options?: { user?: string; threadTs?: string }): string;
  /** Adds a thread of `replies` human messages one second apart; returns the parent's ts. */
  seedThread(channel: string, replies: number, options?: { user?: string }): string;
  /** Pushes an event over Socket Mode; resolves once a client is connected to receive it. */
  push(
    event: Record<string, unknown>,
    options?: { eventId?: string; retryAttempt?: number },
  ): Promise<string>;
  /** A person presses a button of a message (a `block_actions` interaction over Socket Mode). */
  press(options: {
    channel: string;
    messageTs: string;
    actionId: string;
    value: string;
    user?: string;
  }): Promise<string>;
  /** A person submits a modal (a `view_submission` interaction): `values` maps block ids to text. */
  submitView(options: {
    callbackId: string;
    privateMetadata: string;
    values: Record<string, string>;
    user?: string;
  }): Promise<string>;
  /**
   * A person writes "<@bot> text" in a channel (in a thread when given) and Slack delivers its
   * `app_mention`; returns the message's ts and the envelope id.
   */
  mention(
    channel: string,
    text: string,
    options?: { threadTs?: string; user?: string },
  ): Promise<{ ts: string; envelope: string }>;
  /** Delivers a `/assistant` slash command over Socket Mode. */
  command(text: string, options?: { channel?: string; user?: string }): Promise<string>;
  /** What the app posted to slash commands' response_url. */
  responses: Array<Record<string, unknown>>;
  /** The thread's messages as stored. */
  thread(channel: string, threadTs: string): StoredMessage[];
  callsOf(method: string): ApiCall[];
  /** The locale `users.info` reports for a person (default ja-JP). */
  setLocale(user: string, locale: string): void;
  /**
   * Who a person is: their workspace (default T0001; their events, commands and interactions carry it)
   * and whether `users.info` calls them an admin or owner.
   */
  setPerson(user: string, person: { team?: string; admin?: boolean; owner?: boolean }): void;
  /** The payload of each Socket Mode ack that carried one (a view_submission's response_action), by envelope. */
  ackPayloads: Map<string, Record<string, unknown>>;
  /** Makes a method fail with an error code (once per entry). */
  failNext(method: string, error: string): void;
  /**
   * From now on, events go over HTTP (the Events API) to `url`, signed with `signingSecret` as Slack
   * signs them, instead of over Socket Mode. `push` then resolves with the event id; the HTTP status of
   * each delivery is in `deliveries`.
   */
  deliverOverHttp(url: string, signingSecret: string): void;
  /** Each HTTP delivery: the event id, its retry number and the status the app answered. */
  deliveries: Array<{ eventId: string; retryNum: number; status: number }>;
  /**
   * A workspace the app can be installed in: `oauth.v2.access` exchanges the returned code for its bot
   * token (once), `auth.test` answers for that token, and its people's events carry its team and bot.
   * With any workspace added, a call with a token Slack never issued fails with `invalid_auth`.
   */
  addWorkspace(workspace: FakeWorkspace): string;
  /** The OAuth app's credentials `oauth.v2.access` checks (client_id, client_secret). */
  setOAuthApp(clientId: string, clientSecret: string): void;
  connected(): Promise<void>;
  close(): Promise<void>;
}

export const botUserId = 'UBOT0001';

/** The markdown a streaming call carries, whether as `markdown_text` or as `markdown_text` chunks. */
export function streamedText(args: Record<string, unknown>): string {
  const chunks = Array.isArray(args.chunks) ? (args.chunks as Array<{ type?: string; text?: unknown }>) : [];
  const fromChunks = chunks
    .filter((chunk) => chunk.type === 'markdown_text')
    .map((chunk) => String(chunk.text ?? ''))
    .join('');
  return `${typeof args.markdown_text === 'string' ? args.markdown_text : ''}${fromChunks}`;
}

/**
 * Slack's Block Kit limits for a message, enforced as Slack does (`invalid_blocks`): 50 blocks; a section's
 * text at most 3 000 characters, at most 10 fields of 2 000.
 */
export function invalidBlocks(blocks: unknown): string | undefined {
  if (!Array.isArray(blocks)) return undefined;
  if (blocks.length > 50) return `${blocks.length} blocks (at most 50)`;
  for (const block of blocks as Array<{
    type?: string;
    text?: { text?: string };
    fields?: Array<{ text?: string }>;
  }>) {
    if (block.type !== 'section') continue;
    if ((block.text?.text ?? '').length > 3000) return 'a section text over 3000 characters';
    if ((block.fields ?? []).length > 10) return 'a section with more than 10 fields';
    if ((block.fields ?? []).some((field) => (field.text ?? '').length > 2000))
      return 'a section field over 2000 characters';
  }
  return undefined;
}

async function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return {};
  if ((request.headers['content-type'] ?? '').includes('json'))
    return JSON.parse(text) as Record<string, unknown>;
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
 * Starts the fake Slack. `repliesPageCap` caps `conversations.replies` pages below what `limit` asks
 * (default 2, so pagination is always exercised; Slack's own cap is 1 000).
 */
export async function startFakeSlack({
  repliesPageCap = 2,
}: {
  repliesPageCap?: number;
} = {}): Promise<FakeSlack> {
  const calls: ApiCall[] = [];
  const responses: Array<Record<string, unknown>> = [];
  const acks: string[] = [];
  const channels = new Map<string, StoredMessage[]>();
  const failures: Array<[string, string]> = [];
  const userLocales = new Map<string, string>();
  const people = new Map<string, { team?: string; admin?: boolean; owner?: boolean }>();
  const teamOf = (user: unknown) => people.get(String(user))?.team ?? 'T0001';
  const ackPayloads = new Map<string, Record<string, unknown>>();
  const workspaces = new Map<string, FakeWorkspace>();
  const codes = new Map<string, FakeWorkspace>();
  let oauthApp: { clientId: string; clientSecret: string } | undefined;
  const byToken = (token: string | undefined) =>
    [...workspaces.values()].find((workspace) => workspace.botToken === token);
  let http: { url: string; secret: string } | undefined;
  const deliveries: FakeSlack['deliveries'] = [];
  let clock = 1_700_000_000;
  const nextTs = () => `${++clock}.000100`;
  const messages = (channel: string) => {
    const list = channels.get(channel) ?? [];
    channels.set(channel, list);
    return list;
  };
  const sockets = new Set<WebSocket>();
  let onConnected: Array<() => void> = [];

  const answer = (method: string, args: Record<string, unknown>, token?: string): Record<string, unknown> => {
    const failure = failures.findIndex(([name]) => name === method);
    if (failure !== -1) {
      const [, error] = failures.splice(failure, 1)[0] as [string, string];
      return { ok: false, error };
    }
    const channel = String(args.channel ?? '');
    if (method === 'oauth.v2.access') {
      // Slack's rules: the app's own credentials, a code issued for it, used once.
      if (!oauthApp || args.client_id !== oauthApp.clientId) return { ok: false, error: 'invalid_client_id' };
      if (args.client_secret !== oauthApp.clientSecret) return { ok: false, error: 'bad_client_secret' };
      const installed = codes.get(String(args.code ?? ''));
      if (!installed) return { ok: false, error: 'invalid_code' };
      codes.delete(String(args.code));
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
    if (workspaces.size > 0) {
      const workspace = byToken(token);
      if (!token) return { ok: false, error: 'not_authed' };
      if (!workspace) return { ok: false, error: 'invalid_auth' };
      if (method === 'auth.test')
        return {
          ok: true,
          user_id: workspace.botUserId,
          bot_id: workspace.botId ?? `B_${workspace.team}`,
          user: 'assistant',
          team_id: workspace.orgWide ? undefined : workspace.team,
          enterprise_id: workspace.enterprise,
          is_enterprise_install: workspace.orgWide === true,
          url: 'https://example.slack.com/',
        };
    }
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
        return { ok: true, url: `ws://127.0.0.1:${port}/socket` };
      case 'chat.postMessage':
      case 'chat.startStream': {
        // As Slack: a stream outside a DM must name its recipient.
        if (method === 'chat.startStream' && !channel.startsWith('D')) {
          if (!args.recipient_user_id) return { ok: false, error: 'missing_recipient_user_id' };
          if (!args.recipient_team_id) return { ok: false, error: 'missing_recipient_team_id' };
        }
        if (invalidBlocks(args.blocks)) return { ok: false, error: 'invalid_blocks' };
        const ts = nextTs();
        const poster = byToken(token);
        messages(channel).push({
          ts,
          user: poster?.botUserId ?? botUserId,
          bot_id: poster ? (poster.botId ?? `B_${poster.team}`) : 'BBOT0001',
          text: method === 'chat.postMessage' ? String(args.text ?? '') : streamedText(args),
          ...(Array.isArray(args.blocks) ? { blocks: args.blocks } : {}),
          ...(args.thread_ts ? { thread_ts: String(args.thread_ts) } : {}),
        });
        return { ok: true, channel, ts, message: { ts } };
      }
      case 'chat.update':
      case 'chat.appendStream':
      case 'chat.stopStream': {
        const stored = messages(channel).find((message) => message.ts === args.ts);
        if (!stored) return { ok: false, error: 'message_not_found' };
        if (invalidBlocks(args.blocks)) return { ok: false, error: 'invalid_blocks' };
        if (method === 'chat.appendStream' && args.markdown_text === undefined && args.chunks === undefined)
          return { ok: false, error: 'invalid_arguments' };
        stored.text =
          method === 'chat.update' ? String(args.text ?? '') : `${stored.text}${streamedText(args)}`;
        // chat.update replaces the blocks: none given means none left.
        if (method === 'chat.update') stored.blocks = Array.isArray(args.blocks) ? args.blocks : [];
        return { ok: true, channel, ts: stored.ts };
      }
      case 'assistant.threads.setStatus':
      case 'assistant.threads.setSuggestedPrompts':
      case 'assistant.threads.setTitle':
        // As Slack: these name the assistant thread by channel_id and thread_ts.
        if (!args.channel_id || !args.thread_ts) return { ok: false, error: 'invalid_arguments' };
        if (method === 'assistant.threads.setStatus' && typeof args.status !== 'string')
          return { ok: false, error: 'invalid_arguments' };
        return { ok: true };
      case 'users.info':
        return {
          ok: true,
          user: {
            id: args.user,
            name: String(args.user),
            team_id: teamOf(args.user),
            is_admin: people.get(String(args.user))?.admin ?? false,
            is_owner: people.get(String(args.user))?.owner ?? false,
            ...(args.include_locale ? { locale: userLocales.get(String(args.user)) ?? 'ja-JP' } : {}),
          },
        };
      case 'chat.postEphemeral':
        return { ok: true, message_ts: nextTs() };
      case 'views.open':
        if (!args.trigger_id) return { ok: false, error: 'invalid_trigger_id' };
        return { ok: true, view: { id: `V${nextTs()}` } };
      case 'chat.delete': {
        const list = messages(channel);
        const index = list.findIndex((message) => message.ts === args.ts);
        if (index !== -1) list.splice(index, 1);
        return { ok: true };
      }
      case 'conversations.replies': {
        const root = String(args.ts);
        // As Slack: oldest/latest bound the replies (exclusive unless `inclusive`), `limit` caps a page
        // (at most 1 000), oldest first; the parent carries `reply_users`.
        const inclusive = args.inclusive === true || args.inclusive === 'true' || args.inclusive === '1';
        const after = (ts: string, bound: unknown) =>
          bound === undefined || (inclusive ? Number(ts) >= Number(bound) : Number(ts) > Number(bound));
        const before = (ts: string, bound: unknown) =>
          bound === undefined || (inclusive ? Number(ts) <= Number(bound) : Number(ts) < Number(bound));
        const thread = messages(channel).filter(
          (message) => message.ts === root || message.thread_ts === root,
        );
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
        const size = Math.min(Math.max(1, Number(args.limit ?? 1000)), 1000, repliesPageCap);
        const start = Number(args.cursor ?? 0);
        const page = all.slice(start, start + size);
        const next = start + size < all.length ? String(start + size) : '';
        return { ok: true, messages: page, has_more: next !== '', response_metadata: { next_cursor: next } };
      }
      default:
        return { ok: true };
    }
  };

  const server: Server = createServer((request, response) => {
    void (async () => {
      const args = await readBody(request);
      if (request.url?.startsWith('/response/')) {
        responses.push(args);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"ok":true}');
        return;
      }
      const method = (request.url ?? '').replace(/^\/api\//, '').split('?')[0] ?? '';
      const authorization = request.headers.authorization;
      const token = authorization?.replace(/^Bearer /, '') ?? (args.token as string | undefined);
      calls.push({ method, args, token });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer(method, args, token)));
    })();
  });
  const sockets_server = new WebSocketServer({ server, path: '/socket' });
  sockets_server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('message', (data) => {
      const ack = JSON.parse(String(data)) as { envelope_id?: string; payload?: Record<string, unknown> };
      if (ack.envelope_id) acks.push(ack.envelope_id);
      if (ack.envelope_id && ack.payload) ackPayloads.set(ack.envelope_id, ack.payload);
    });
    socket.on('close', () => sockets.delete(socket));
    socket.send(
      JSON.stringify({
        type: 'hello',
        num_connections: 1,
        debug_info: { host: 'fake' },
        connection_info: { app_id: 'A0001' },
      }),
    );
    for (const resolve of onConnected) resolve();
    onConnected = [];
  });
  const port = Number(new URL(await listenOnLoopback(server)).port);
  let envelopeCount = 0;
  let eventCount = 0;
  const send = async (type: string, payload: Record<string, unknown>, retryAttempt = 0) => {
    await connected();
    const envelopeId = `envelope-${++envelopeCount}`;
    const envelope = {
      envelope_id: envelopeId,
      type,
      accepts_response_payload: type !== 'events_api',
      retry_attempt: retryAttempt,
      retry_reason: retryAttempt ? 'timeout' : '',
      payload,
    };
    for (const socket of sockets) socket.send(JSON.stringify(envelope));
    return envelopeId;
  };

  const connected = () =>
    sockets.size > 0 ? Promise.resolve() : new Promise<void>((resolve) => onConnected.push(resolve));

  /** Slack's Events API delivery: the body signed with the app's signing secret (v0, HMAC-SHA256). */
  const deliver = async (url: string, secret: string, payload: Record<string, unknown>, retryNum: number) => {
    const body = JSON.stringify(payload);
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
    const response = await fetch(url, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'x-slack-request-timestamp': String(timestamp),
        'x-slack-signature': signature,
        ...(retryNum > 0
          ? { 'x-slack-retry-num': String(retryNum), 'x-slack-retry-reason': 'http_timeout' }
          : {}),
      },
      signal: AbortSignal.timeout(10_000),
    });
    await response.arrayBuffer();
    deliveries.push({ eventId: String(payload.event_id), retryNum, status: response.status });
    return response.status;
  };

  const push: FakeSlack['push'] = async (event, options = {}) => {
    const team = typeof event.team === 'string' ? event.team : teamOf(event.user);
    const workspace = workspaces.get(team);
    const payload = {
      token: 'verification',
      team_id: team,
      ...(workspace?.enterprise ? { enterprise_id: workspace.enterprise } : {}),
      api_app_id: 'A0001',
      type: 'event_callback',
      // Counted apart from envelopes: events pushed at the same moment still get their own ids.
      event_id: options.eventId ?? `Ev${++eventCount}`,
      event_time: 1,
      ...(workspace
        ? {
            authorizations: [
              {
                team_id: workspace.orgWide ? null : team,
                enterprise_id: workspace.enterprise ?? null,
                user_id: workspace.botUserId,
                is_bot: true,
                is_enterprise_install: workspace.orgWide === true,
              },
            ],
            is_ext_shared_channel: false,
          }
        : {}),
      event,
    };
    if (!http) return send('events_api', payload, options.retryAttempt ?? 0);
    await deliver(http.url, http.secret, payload, options.retryAttempt ?? 0);
    return payload.event_id;
  };

  /** The fields every interaction payload carries about who acted, and where. */
  const interactionBy = (user: string) => ({
    team: { id: teamOf(user), domain: 'test' },
    user: { id: user, username: user, team_id: teamOf(user) },
    api_app_id: 'A0001',
    token: 'verification',
  });

  const say: FakeSlack['say'] = (channel, text, options = {}) => {
    const ts = nextTs();
    messages(channel).push({
      ts,
      user: options.user ?? 'UHUMAN01',
      text,
      ...(options.threadTs ? { thread_ts: options.threadTs } : {}),
    });
    return ts;
  };

  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    calls,
    acks,
    say,
    setLocale(user, locale) {
      userLocales.set(user, locale);
    },
    seedThread(channel, replies, options = {}) {
      const root = say(channel, 'a long thread', options);
      for (let index = 0; index < replies; index++)
        say(channel, `reply ${index + 1}`, { ...options, threadTs: root });
      return root;
    },
    push,
    async mention(channel, text, options = {}) {
      const user = options.user ?? 'UHUMAN01';
      const full = `<@${workspaces.get(teamOf(user))?.botUserId ?? botUserId}> ${text}`;
      const ts = say(channel, full, { user, ...(options.threadTs ? { threadTs: options.threadTs } : {}) });
      const envelope = await push({
        type: 'app_mention',
        channel,
        user,
        text: full,
        team: teamOf(user),
        ts,
        event_ts: ts,
        ...(options.threadTs ? { thread_ts: options.threadTs } : {}),
      });
      return { ts, envelope };
    },
    press({ channel, messageTs, actionId, value, user = 'UHUMAN01' }) {
      const message = messages(channel).find((entry) => entry.ts === messageTs);
      return send('interactive', {
        type: 'block_actions',
        ...interactionBy(user),
        container: { type: 'message', message_ts: messageTs, channel_id: channel, is_ephemeral: false },
        trigger_id: `trigger-${envelopeCount + 1}`,
        channel: { id: channel, name: channel },
        message: { ...message, ts: messageTs },
        response_url: `http://127.0.0.1:${port}/response/${envelopeCount + 1}`,
        actions: [
          {
            type: 'button',
            action_id: actionId,
            block_id: 'approval',
            value,
            action_ts: String(Date.now() / 1000),
          },
        ],
      });
    },
    submitView({ callbackId, privateMetadata, values, user = 'UHUMAN01' }) {
      return send('interactive', {
        type: 'view_submission',
        ...interactionBy(user),
        trigger_id: `trigger-${envelopeCount + 1}`,
        view: {
          id: 'V0001',
          type: 'modal',
          callback_id: callbackId,
          private_metadata: privateMetadata,
          state: {
            values: Object.fromEntries(
              Object.entries(values).map(([block, text]) => [
                block,
                { value: { type: 'plain_text_input', value: text } },
              ]),
            ),
          },
        },
      });
    },
    command(text, options = {}) {
      return send('slash_commands', {
        token: 'verification',
        team_id: teamOf(options.user ?? 'UHUMAN01'),
        api_app_id: 'A0001',
        channel_id: options.channel ?? 'C0CMD',
        user_id: options.user ?? 'UHUMAN01',
        command: '/assistant',
        text,
        response_url: `http://127.0.0.1:${port}/response/${envelopeCount + 1}`,
        trigger_id: 'trigger',
      });
    },
    responses,
    ackPayloads,
    setPerson: (user, person) => {
      people.set(user, { ...people.get(user), ...person });
    },
    thread: (channel, threadTs) =>
      messages(channel).filter((message) => message.ts === threadTs || message.thread_ts === threadTs),
    callsOf: (method) => calls.filter((call) => call.method === method),
    failNext: (method, error) => {
      failures.push([method, error]);
    },
    deliverOverHttp(url, signingSecret) {
      http = { url, secret: signingSecret };
    },
    deliveries,
    addWorkspace(workspace) {
      workspaces.set(workspace.team, workspace);
      const code = `code-${workspace.team}-${codes.size + 1}`;
      codes.set(code, workspace);
      return code;
    },
    setOAuthApp(clientId, clientSecret) {
      oauthApp = { clientId, clientSecret };
    },
    connected,
    async close() {
      for (const socket of sockets) socket.terminate();
      sockets_server.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
