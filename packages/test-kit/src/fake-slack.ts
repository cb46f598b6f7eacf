// The fake Slack, assembled: its recorded state, the Web API and Socket Mode on one loopback server,
// events over either, and people's interactions.
import { createServer } from 'node:http';
import { attachSocketMode, eventPusher } from './fake-slack-delivery.js';
import { fakeSlackFiles } from './fake-slack-files.js';
import { type HistoryLimits, historyLimiter } from './fake-slack-history.js';
import { interactions } from './fake-slack-interactions.js';
import { createSlackState, human } from './fake-slack-state.js';
import type { FakeSlack } from './fake-slack-types.js';
import { httpHandler, webApi } from './fake-slack-web-api.js';
import { listenOnLoopback } from './ports.js';

export { streamedText } from './fake-slack-blocks.js';
export type { HistoryLimits, RefusedRead } from './fake-slack-history.js';
export { botUserId } from './fake-slack-state.js';
export type { ApiCall, FakeSlack, FakeWorkspace, StoredMessage } from './fake-slack-types.js';

/**
 * Starts the fake Slack. `repliesPageCap` caps `conversations.replies` pages below what `limit` asks
 * (default 2, so pagination is always exercised; Slack's own cap is 1 000). `historyLimits` applies the
 * limits of a distributed app not approved for the Marketplace (1 history read a minute, pages of 15,
 * 429 with Retry-After); `{}` takes Slack's own numbers.
 */
export async function startFakeSlack({
  repliesPageCap = 2,
  historyLimits,
}: {
  repliesPageCap?: number;
  historyLimits?: HistoryLimits;
} = {}): Promise<FakeSlack> {
  const state = createSlackState();
  const limiter = historyLimits ? historyLimiter(historyLimits) : undefined;
  // Known once the server listens, before any request can ask for it.
  let baseUrl = '';
  const files = fakeSlackFiles();
  const answer = webApi(state, {
    socketUrl: () => `${baseUrl.replace(/^http/, 'ws')}/socket`,
    repliesPageCap: limiter ? limiter.pageSize : repliesPageCap,
    files,
    baseUrl: () => baseUrl,
  });
  const server = createServer(httpHandler(state, answer, files, limiter));
  const socketMode = attachSocketMode(server, state);
  baseUrl = `http://127.0.0.1:${new URL(await listenOnLoopback(server)).port}`;
  const push = eventPusher(state, socketMode);

  return {
    apiUrl: `${baseUrl}/api/`,
    calls: state.calls,
    acks: state.acks,
    say: state.say,
    setLocale(user, locale) {
      state.userLocales.set(user, locale);
    },
    seedThread(channel, replies, options = {}) {
      const root = state.say(channel, 'a long thread', options);
      for (let index = 0; index < replies; index++)
        state.say(channel, `reply ${index + 1}`, { ...options, threadTs: root });
      return root;
    },
    push,
    ...interactions(state, { socketMode, push, baseUrl: () => baseUrl }),
    responses: state.responses,
    ackPayloads: state.ackPayloads,
    setPerson: (user, person) => {
      state.people.set(user, { ...state.people.get(user), ...person });
    },
    setChannel: (channel, members) => {
      state.channelMembers.set(channel, members);
    },
    thread: state.thread,
    files: files.shared,
    attach: (file) =>
      files.attach({ ...file, user: file.user ?? human, team: state.teamOf(file.user ?? human) }, baseUrl),
    downloads: files.downloads,
    callsOf: (method) => state.calls.filter((call) => call.method === method),
    failNext: (method, error) => {
      state.failures.push([method, error]);
    },
    deliverOverHttp(url, signingSecret) {
      state.http = { url, secret: signingSecret };
    },
    deliveries: state.deliveries,
    refusedReads: limiter?.refused ?? [],
    addWorkspace(workspace) {
      state.workspaces.set(workspace.team, workspace);
      const code = `code-${workspace.team}-${state.codes.size + 1}`;
      state.codes.set(code, workspace);
      return code;
    },
    setOAuthApp(clientId, clientSecret) {
      state.oauthApp = { clientId, clientSecret };
    },
    connected: socketMode.connected,
    async close() {
      socketMode.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
