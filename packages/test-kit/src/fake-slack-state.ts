// What the fake Slack keeps: the app's calls and acks, the channels' messages, the people, the workspaces
// the app can be installed in, and what the tests arranged (failures to come, where events go).
import type { ApiCall, FakeSlack, FakeWorkspace, StoredMessage } from './fake-slack-types.js';

export const botUserId = 'UBOT0001';

/** The person who speaks, presses and submits when a test names no one. */
export const human = 'UHUMAN01';

export interface Person {
  team?: string;
  admin?: boolean;
  owner?: boolean;
  /** IANA time zone `users.info` reports (default Asia/Tokyo). */
  tz?: string;
  /** Deactivated: `users.info` says `deleted: true`. */
  deleted?: boolean;
}

/** Who is in a channel, when a test says so (a channel it never named has everyone, the bot included). */
export interface ChannelMembers {
  members: string[];
  /** Whether the bot is in it (default true). */
  bot?: boolean;
  archived?: boolean;
}

export interface SlackState {
  calls: ApiCall[];
  /** What the app posted to slash commands' response_url. */
  responses: Array<Record<string, unknown>>;
  acks: string[];
  ackPayloads: Map<string, Record<string, unknown>>;
  deliveries: FakeSlack['deliveries'];
  /** Methods to fail next, each with its error code, consumed once. */
  failures: Array<[string, string]>;
  userLocales: Map<string, string>;
  people: Map<string, Person>;
  /** Channels whose members a test set. */
  channelMembers: Map<string, ChannelMembers>;
  /** The workspaces the app can be installed in, by team. */
  workspaces: Map<string, FakeWorkspace>;
  /** The OAuth codes Slack issued, each for the workspace it installs in. */
  codes: Map<string, FakeWorkspace>;
  oauthApp: { clientId: string; clientSecret: string } | undefined;
  /** Where events go over HTTP (the Events API); none means over Socket Mode. */
  http: { url: string; secret: string } | undefined;
  /** A channel's messages, oldest first (the list itself, to add to). */
  messages(channel: string): StoredMessage[];
  /** A thread's parent and replies. */
  thread(channel: string, threadTs: string): StoredMessage[];
  /** The next message ts: one second after the last. */
  nextTs(): string;
  /** A person's workspace (default T0001). */
  teamOf(user: unknown): string;
  /** The workspace a bot token was issued for. */
  byToken(token: string | undefined): FakeWorkspace | undefined;
  /** Adds a human message (to a channel or a thread) and returns its ts. */
  say: FakeSlack['say'];
}

export function createSlackState(): SlackState {
  const channels = new Map<string, StoredMessage[]>();
  const people = new Map<string, Person>();
  const workspaces = new Map<string, FakeWorkspace>();
  let clock = 1_700_000_000;
  const messages = (channel: string) => {
    const list = channels.get(channel) ?? [];
    channels.set(channel, list);
    return list;
  };
  const nextTs = () => `${++clock}.000100`;
  return {
    calls: [],
    responses: [],
    acks: [],
    ackPayloads: new Map(),
    deliveries: [],
    failures: [],
    userLocales: new Map(),
    people,
    channelMembers: new Map(),
    workspaces,
    codes: new Map(),
    oauthApp: undefined,
    http: undefined,
    messages,
    thread: (channel, threadTs) =>
      messages(channel).filter((message) => message.ts === threadTs || message.thread_ts === threadTs),
    nextTs,
    teamOf: (user) => people.get(String(user))?.team ?? 'T0001',
    byToken: (token) => [...workspaces.values()].find((workspace) => workspace.botToken === token),
    say(channel, text, options = {}) {
      const ts = nextTs();
      messages(channel).push({
        ts,
        user: options.user ?? human,
        text,
        ...(options.threadTs ? { thread_ts: options.threadTs } : {}),
      });
      return ts;
    },
  };
}
