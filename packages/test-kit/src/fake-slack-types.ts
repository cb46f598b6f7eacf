import type { AttachedFile, UploadedFile } from './fake-slack-files.js';
import type { RefusedRead } from './fake-slack-history.js';
// The fake Slack's public face: what a test sees of it (calls, messages, workspaces) and what it can do.

/** One Web API call the app made. */
export interface ApiCall {
  method: string;
  args: Record<string, unknown>;
  token: string | undefined;
  /** When the call arrived (`performance.now()` of this process). */
  at: number;
}

export interface StoredMessage {
  ts: string;
  user?: string;
  bot_id?: string;
  text: string;
  thread_ts?: string;
  blocks?: unknown[];
  /** A message started with chat.startStream, until chat.stopStream. */
  streaming?: boolean;
  /** The task_update chunks streamed into it, in order. */
  tasks?: Array<Record<string, unknown>>;
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
  /** A person presses a button of a view (the App Home): a `block_actions` whose container is the view. */
  pressInView(options: {
    actionId: string;
    value: string;
    user?: string;
    viewType?: string;
    /** A select's chosen option value (the action is then a `static_select`). */
    selected?: string;
    /** A modal's inputs when the button is pressed (as `submitView`'s `values`). */
    values?: Record<string, string | Record<string, unknown>>;
    callbackId?: string;
  }): Promise<string>;
  /** A person picks one of the app's message shortcuts on a message (a `message_action` interaction). */
  shortcut(options: {
    channel: string;
    messageTs: string;
    callbackId: string;
    user?: string;
  }): Promise<string>;
  /** A person submits a modal (a `view_submission` interaction): `values` maps block ids to text. */
  submitView(options: {
    callbackId: string;
    privateMetadata: string;
    /**
     * Block id → the input's value: text for a plain_text_input, or the element's state as Slack sends
     * it (`{ type: 'number_input', value: '7' }`, `{ type: 'checkboxes', selected_options: […] }`).
     */
    values: Record<string, string | Record<string, unknown>>;
    user?: string;
  }): Promise<string>;
  /** Files the app uploaded (files.getUploadURLExternal, the upload, files.completeUploadExternal). */
  files: UploadedFile[];
  /**
   * A person writes "<@bot> text" in a channel (in a thread when given) and Slack delivers its
   * `app_mention`; returns the message's ts and the envelope id.
   */
  mention(
    channel: string,
    text: string,
    options?: { threadTs?: string; user?: string; files?: AttachedFile[] },
  ): Promise<{ ts: string; envelope: string }>;
  /**
   * A person attaches a file (to pass as a mention's or message's `files`): served at its
   * `url_private_download` to a bot token of its workspace only. `size` overrides what Slack reports.
   */
  attach(file: { name: string; mimetype: string; bytes: Buffer; user?: string; size?: number }): AttachedFile;
  /** Each download of an attached file, and whether it was served. */
  downloads: Array<{ id: string; served: boolean }>;
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
  setPerson(
    user: string,
    person: { team?: string; admin?: boolean; owner?: boolean; tz?: string; deleted?: boolean },
  ): void;
  /**
   * Who is in a channel (`conversations.members`, `conversations.info`'s `is_member` for the bot); a
   * channel the bot is not in refuses `chat.postMessage` with `not_in_channel`, as Slack does.
   */
  setChannel(channel: string, members: { members: string[]; bot?: boolean; archived?: boolean }): void;
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
  /** History reads refused with 429 (only with `historyLimits`). */
  refusedReads: RefusedRead[];
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
