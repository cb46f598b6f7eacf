import { type People, Scheduler } from '@ai-assistant/assistant';
import type { ChatService, Logger } from '@ai-assistant/host-core';
import type { Store } from '@ai-assistant/store';
import { App, HTTPReceiver, LogLevel, webApi } from '@slack/bolt';
import { InstallProvider } from '@slack/oauth';
import type { BotConfig } from './config.js';
import { createHttpServer, healthReport, listen } from './http-server.js';
import { register as registerAppViews } from './listeners/actions/app-views.js';
import { register as registerApprovalActions } from './listeners/actions/approval.js';
import { register as registerCredentialActions } from './listeners/actions/credentials.js';
import { register as registerElicitationActions } from './listeners/actions/elicitation.js';
import { register as registerFeedback } from './listeners/actions/feedback.js';
import { register as registerLongTaskActions } from './listeners/actions/long-tasks.js';
import { registerRepeat, register as registerScheduleActions } from './listeners/actions/schedules.js';
import { register as registerWorkspaceAdmin } from './listeners/actions/workspace-admin.js';
import { register as registerAppHome } from './listeners/events/app-home.js';
import { register as registerUninstall } from './listeners/events/uninstall.js';
import { registerListeners } from './listeners/index.js';
import { Answering } from './slack/answering.js';
import { SlackApprovals } from './slack/approvals.js';
import { boltLogger } from './slack/bolt-logger.js';
import { ConnectStarts } from './slack/connect-start.js';
import { SlackElicitations } from './slack/elicitation.js';
import { StoreInstallations } from './slack/installations.js';
import { LongTaskFollower } from './slack/long-tasks.js';
import { ConnectMessages, oauthCallbackPage } from './slack/oauth-connect.js';
import { offerConnect, personOf } from './slack/people.js';
import { EventClaims, StoreHealth } from './slack/replicas.js';
import { ScheduledRuns } from './slack/scheduled-runs.js';
import { SlackScheduleProposer } from './slack/schedules.js';
import { type SlackConnectionState, SlackStartError, slackStartFailure } from './slack/slack-connection.js';
import type { BotIdentity } from './slack/thread-history.js';
import { ThreadMemory } from './slack/thread-memory.js';
import { ThreadRecorder } from './slack/thread-recorder.js';
import { WorkQueue } from './slack/work-queue.js';

/** What the Slack app is built from. */
export interface SlackBotDependencies {
  config: BotConfig;
  chat: ChatService;
  /** The one door to MCP: each person's view, the workspace's servers, credentials and settings. */
  people: People;
  /**
   * What must outlive the process or be shared by replicas: installations (OAuth), event claims and
   * thread turns, conversations, approvals, Connect links (PGlite for one process, or PostgreSQL).
   */
  store: Store;
  logger: Logger;
  /** Called with every bot token read from an installation (the app's redactor pins it). */
  onToken?: (token: string) => void;
  /** The clock of conversation retention (default the real one). */
  now?: () => Date;
}

/** A running (or runnable) Slack app. */
export interface SlackBot {
  app: App;
  /**
   * Listens (`/healthz` first), then reaches Slack; rejects with a SlackStartError when Slack refuses or
   * cannot be reached, leaving `/healthz` up to say why (503) until `stop`.
   */
  start(): Promise<void>;
  /** Stops taking events, lets running answers finish (up to `graceMs`), then resolves. */
  stop(graceMs?: number): Promise<void>;
  /** This replica's scheduler: one pass now (`tick`), and the runs it started (`settled`). */
  schedules: Pick<Scheduler, 'tick' | 'settled'>;
}

/**
 * Builds the Bolt app: Socket Mode when an app token is set, else Bolt's HTTP receiver behind our own
 * server (a body-size cap before anything is read). Both serve /healthz; in Socket Mode it listens on
 * 127.0.0.1 unless HTTP_HOST says otherwise.
 */
export function createSlackBot({
  config,
  chat,
  people,
  store,
  logger,
  onToken,
  now,
}: SlackBotDependencies): SlackBot {
  const clientOptions = config.apiUrl ? { slackApiUrl: config.apiUrl } : {};
  // Requests to Slack that failed in a row (network, DNS, proxy): /healthz says so while starting.
  let unreachableTries = 0;
  const slackLogger = boltLogger(logger, config.apiUrl ?? 'https://slack.com/api/', undefined, (failures) => {
    unreachableTries = failures;
  });
  // OAuth: each workspace's install gives its token, found per event by Bolt's `authorize`.
  const installer = config.oauth
    ? new InstallProvider({
        clientId: config.oauth.clientId,
        clientSecret: config.oauth.clientSecret,
        stateSecret: config.oauth.stateSecret,
        installationStore: new StoreInstallations(store, logger, onToken),
        directInstall: true,
        clientOptions,
        logger: slackLogger,
      })
    : undefined;
  const receiver = config.appToken
    ? undefined
    : new HTTPReceiver({ signingSecret: config.signingSecret as string, logger: slackLogger });
  const app = new App({
    ...(installer ? { authorize: (source) => installer.authorize(source) } : { token: config.botToken }),
    ...(receiver ? { receiver } : { socketMode: true, appToken: config.appToken }),
    clientOptions,
    logger: slackLogger,
    logLevel: LogLevel.INFO,
    // Bolt's own auth.test runs in start(), awaited: from the constructor it ran unawaited, and a token
    // Slack refused at once crashed the process before /healthz could say why.
    deferInitialization: true,
  });
  const storeHealth = new StoreHealth(store.coordination, logger);
  const installOptions = config.oauth
    ? {
        scopes: config.oauth.scopes,
        ...(config.oauth.redirectUri ? { redirectUri: config.oauth.redirectUri } : {}),
      }
    : undefined;
  const connectMessages = new ConnectMessages(store.sealed);
  // Connect links lead to the bot's start page, which says whose account is being connected.
  const connectStarts = new ConnectStarts(store.sealed, config.publicUrl, now);
  let slackConnection: SlackConnectionState = { state: 'starting', reason: 'not started' };
  // MCP Apps views: Open under a result with a view, and its pages under /apps/ (with PUBLIC_URL).
  const appViews = registerAppViews(app, {
    store,
    people,
    publicUrl: config.publicUrl,
    logger,
    clientFor: (workspace) => clientFor(workspace),
    followUp: (question) => accept(question),
    ...(now ? { now } : {}),
  });
  const server = createHttpServer({
    health: async () =>
      healthReport(
        people.mcpEnabled ? people.catalog() : undefined,
        config.healthDetails,
        await storeHealth.report(),
        slackConnection.state === 'starting' && unreachableTries > 0
          ? {
              state: 'starting',
              reason: `cannot reach Slack's API (${unreachableTries} ${unreachableTries === 1 ? 'try' : 'tries'} in a row; still retrying): check the network, DNS and proxy (HTTPS_PROXY), and SLACK_API_URL if set`,
            }
          : slackConnection,
      ),
    ...(receiver ? { slack: receiver.requestListener } : {}),
    pages: {
      ...appViews.pages,
      ...(installer && installOptions
        ? {
            '/slack/install': (request, response) =>
              installer.handleInstallPath(request, response, undefined, installOptions),
            '/slack/oauth_redirect': (request, response) => installer.handleCallback(request, response),
          }
        : {}),
      // MCP servers with OAuth: people come back here from their authorization server.
      ...(config.publicUrl
        ? {
            '/oauth/start': connectStarts.startPage(),
            '/oauth/callback': oauthCallbackPage({
              people,
              starts: connectStarts,
              messages: connectMessages,
              publicUrl: config.publicUrl,
              logger,
            }),
            // One client ID metadata document per authorization server: /oauth/client-metadata/<id>.json.
            '/oauth/client-metadata/': async (request, response) => {
              const path = new URL(request.url ?? '/', 'http://localhost').pathname;
              const id = /^\/oauth\/client-metadata\/([\w-]+)\.json$/.exec(path)?.[1];
              const document = id ? people.clientMetadataDocument(id) : undefined;
              response.writeHead(document ? 200 : 404, {
                'content-type': 'application/json',
                'cache-control': 'max-age=300',
              });
              response.end(JSON.stringify(document ?? { error: 'no such client metadata document' }));
            },
          }
        : {}),
    },
    forms: {
      ...appViews.forms,
      ...(config.publicUrl ? { '/oauth/start': connectStarts.confirm(logger) } : {}),
    },
    // Until Slack has said who the bot is, an event cannot be answered (nor told from the bot's own).
    refusing: () =>
      slackConnection.state !== 'ready'
        ? 'not connected to Slack yet (see /healthz)'
        : !storeHealth.ok
          ? 'store unreachable'
          : undefined,
  });
  const queue = new WorkQueue(config.maxConcurrent);
  let bot: BotIdentity = { userId: '' };
  const threads = new ThreadMemory();
  // What was said in the bot's threads, in the store.
  const conversations = new ThreadRecorder(store.conversations, {
    client: app.client,
    bot: () => bot,
    logger,
    retentionDays: config.conversationRetentionDays,
    ...(now ? { now } : {}),
  });
  let pruning: NodeJS.Timeout | undefined;
  const prune = () =>
    void conversations
      .prune(config.conversationRetentionDays)
      .then((count) => {
        if (count > 0)
          logger.info(
            { count, days: config.conversationRetentionDays },
            'conversation messages past retention deleted',
          );
      })
      .catch((error: unknown) => logger.warn({ error }, 'could not prune conversations'));
  const approvals = new SlackApprovals(
    app.client,
    logger,
    config.approvalTimeoutMs,
    config.approvalsPerPerson,
    store.approvals,
  );
  registerApprovalActions(app, approvals);
  const elicitations = new SlackElicitations(app.client, logger, config.approvalTimeoutMs);
  registerElicitationActions(app, elicitations);
  const claims = new EventClaims(store.coordination, storeHealth, logger);
  registerCredentialActions(app, people, logger, connectMessages);
  // 👍/👎 under streamed answers: kept in the store for the operator.
  registerFeedback(
    app,
    async (press) => {
      await store.conversations.rate(press.workspace, press);
    },
    logger,
    now,
  );
  // A workspace's own client (its install's token), for work no event brought: schedules, long tasks.
  const clientFor = async (workspace: string) => {
    if (!installer) return app.client;
    const token = (
      await installer
        .authorize({ teamId: workspace, enterpriseId: undefined, isEnterpriseInstall: false })
        .catch(() => undefined)
    )?.botToken;
    return token ? (new webApi.WebClient(token, clientOptions) as unknown as typeof app.client) : undefined;
  };
  const longTasks = new LongTaskFollower({
    people,
    tasks: store.longTasks,
    logger,
    clientFor,
    retryMs: config.longTaskRetryMs,
  });
  registerLongTaskActions(app, longTasks, logger);
  const answering = new Answering({
    threads,
    client: app.client,
    chat,
    bot: () => bot,
    logger,
    queue,
    historyLimit: config.historyLimit,
    streaming: config.streaming,
    approvals,
    elicitations,
    claims,
    turns: conversations,
    tools: async (question) => {
      const person = personOf(question);
      // The view is built first without the proposer; the proposer reads its write tools when called.
      let writeTools: () => string[] = () => [];
      const view = await people.viewFor(person, {
        conversations: conversations.sourceFor(person, {
          channel: question.channel,
          threadTs: question.threadTs,
        }),
        ...(question.user
          ? {
              schedules: new SlackScheduleProposer({
                client: question.client ?? app.client,
                store,
                logger,
                workspace: person.workspace,
                owner: person.user,
                place: { channel: question.channel, threadTs: question.threadTs },
                writeTools: () => writeTools(),
              }),
            }
          : {}),
      });
      writeTools = () =>
        (view?.listTools() ?? []).filter((tool) => tool.needsApproval).map((tool) => tool.name);
      return view;
    },
    onTaskDetached: (question, task) =>
      longTasks.detached(
        question.client ?? app.client,
        {
          workspace: personOf(question).workspace,
          person: question.user ?? '',
          channel: question.channel,
          threadTs: question.threadTs,
        },
        task,
      ),
    views: appViews.views,
    onCredentialNeeded: (question, server, refused, scope) =>
      void offerConnect(
        question.client ?? app.client,
        question,
        server,
        { people, starts: connectStarts },
        logger,
        refused,
        scope,
      ),
  });
  const accept = (question: Parameters<Answering['accept']>[0]) => answering.accept(question);
  registerListeners(app, {
    events: {
      bot: () => bot,
      claims,
      threads,
      conversations,
      followUps: config.followUps,
      logger,
      accept,
    },
    commands: {
      people,
      accept,
      logger,
      conversations: (person, place) => conversations.sourceFor(person, place),
      starts: connectStarts,
      toolsFor: (view, words) => chat.toolsFor(view, words),
      audit: store.audit,
      schedules: store,
      ...(now ? { now } : {}),
    },
  });
  // Schedules: each replica ticks; each occurrence runs on the one replica that claims it.
  const scheduledRuns = new ScheduledRuns({
    people,
    chat,
    schedules: store.schedules,
    approvals,
    logger,
    clientFor,
    onTaskDetached: (client, where, task) => longTasks.detached(client, where, task),
  });
  const scheduler = new Scheduler({
    schedules: store.schedules,
    run: (occurrence) => scheduledRuns.run(occurrence),
    interrupted: (schedule, dueAt) => scheduledRuns.interrupted(schedule, dueAt),
    logger,
    concurrency: config.schedules.concurrency,
    graceMs: config.schedules.graceMs,
    ...(now ? { now } : {}),
  });
  const scheduleDependencies = {
    people,
    logger,
    starts: connectStarts,
    store,
    ...(now ? { now } : {}),
    wake: () => void scheduler.tick().catch(() => undefined),
  };
  registerScheduleActions(app, scheduleDependencies);
  registerRepeat(app, scheduleDependencies);
  registerUninstall(app, store, people, logger);
  registerAppHome(app, { people, logger, starts: connectStarts, store });
  registerWorkspaceAdmin(app, { people, logger, starts: connectStarts, store });
  app.error(async (error) => {
    logger.error({ error }, 'unhandled error in a Slack listener');
  });

  return {
    app,
    schedules: scheduler,
    async start() {
      // /healthz listens first, so a bot that cannot reach Slack (or whose token Slack refuses) says so.
      const host = config.httpHost ?? (config.appToken ? '127.0.0.1' : undefined);
      await listen(server, config.port, host);
      const reaching = async <T>(step: string, variable: string, call: () => Promise<T>): Promise<T> => {
        slackConnection = { state: 'starting', reason: `waiting for Slack's answer to ${step}` };
        try {
          return await call();
        } catch (error) {
          const reason = slackStartFailure(error, step, variable);
          slackConnection = { state: 'failed', reason };
          throw new SlackStartError(reason, { cause: error });
        }
      };
      // One workspace: the bot is who its token says. OAuth: each event's authorization says.
      if (!installer) {
        const identity = await reaching('auth.test', 'SLACK_BOT_TOKEN', () => app.client.auth.test());
        bot = { userId: identity.user_id as string, ...(identity.bot_id ? { botId: identity.bot_id } : {}) };
      }
      await reaching('auth.test', 'SLACK_BOT_TOKEN', () => app.init());
      await store.coordination.start();
      // Requests of replicas that stopped while asking can no longer be answered: their messages say so.
      void approvals.expireOrphans(
        () => store.approvals.expireOrphans(),
        async (workspace) =>
          installer
            ? (
                await installer.authorize({
                  teamId: workspace,
                  enterpriseId: undefined,
                  isEnterpriseInstall: false,
                })
              ).botToken
            : undefined,
      );
      storeHealth.start();
      scheduler.startTicking(config.schedules.tickMs);
      longTasks.startTicking(config.schedules.tickMs);
      prune();
      pruning = setInterval(prune, 6 * 3_600_000);
      pruning.unref();
      // Socket Mode connects out to Slack; the HTTP receiver is served by `server` and needs no start.
      if (config.appToken)
        await reaching('the Socket Mode connection (apps.connections.open)', 'SLACK_APP_TOKEN', () =>
          app.start(),
        );
      slackConnection = { state: 'ready' };
      logger.info(
        {
          mode: config.appToken ? 'socket' : 'http',
          port: config.port,
          host,
          ...(installer ? { install: '/slack/install' } : { botUserId: bot.userId }),
          replica: store.coordination.replicaKey,
        },
        'Slack app started',
      );
    },
    async stop(graceMs = 10_000) {
      // Running answers get the grace period; then what still runs is aborted with a word in its thread.
      const drained = answering.stop(graceMs);
      const schedulesStopped = Promise.all([scheduler.stop(graceMs), longTasks.stop()]);
      if (config.appToken)
        await app.stop().catch((error: unknown) => logger.warn({ error }, 'receiver did not stop cleanly'));
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      storeHealth.stop();
      clearInterval(pruning);
      if (!(await drained))
        logger.warn({ pending: queue.size }, 'answers still running after the grace period and the abort');
      await schedulesStopped;
      // Every thread's turn went with its answer; the replica's own lock goes now (the store closes after).
      await store.coordination.stop().catch(() => {});
    },
  };
}
