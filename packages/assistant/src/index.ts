// The assistant's service, shared by the Slack app and the terminal chat: people and their credentials,
// workspace administration and the servers a workspace adds, usage and budgets, conversation tools,
// and the pages of MCP Apps views.
// Private: host-core is the library; this is what both apps build on it.
export {
  type AppMessageTarget,
  type AppViewRecord,
  AppViewService,
  type AppViewServiceOptions,
  type PageRequest,
  type ToolView,
  viewRetentionMs,
} from './app-views/app-views.js';
export {
  AppLinks,
  type AppViewRecords,
  linkLifetimeMs,
  type Refusal,
  sessionLifetimeMs,
  type ViewSession,
} from './app-views/links.js';
export { type AppViewRoutes, appViewPages, frameCsp } from './app-views/page.js';
export {
  type ConversationCounts,
  ConversationRefused,
  type ConversationSource,
  conversationAdditions,
  type PastConversation,
  type PastMessage,
  type RecordedThread,
} from './conversation-tools.js';
export { credentialProblem, minimumCredentialLength } from './credential-check.js';
export { People } from './people.js';
export {
  type ApprovalChoice,
  type ConnectProblem,
  ConnectRefused,
  type PeopleAuditEntry,
  type PeopleOptions,
  type PeopleStore,
  type PersonRef,
  type WorkspaceServer,
  type WorkspaceServerInput,
  workspaceLimitNames,
  workspaceLimitsOf,
} from './people-types.js';
export {
  isTimeZone,
  localTime,
  minimumIntervalMinutes,
  nextOccurrence,
  readScheduleTimes,
  type ScheduleTimes,
  ScheduleWordsError,
} from './schedules/schedule-times.js';
export {
  combineAdditions,
  type ScheduleProposal,
  type ScheduleProposer,
  scheduleAdditions,
} from './schedules/schedule-tool.js';
export {
  defaultGraceMs,
  type Occurrence,
  type OccurrenceResult,
  Scheduler,
  type SchedulerOptions,
  type TickReport,
} from './schedules/scheduler.js';
export { type StartPeopleOptions, startPeople } from './start-people.js';
export {
  effectiveLimits,
  UsageGate,
  type UsageLimits,
  type UsagePerson,
  usageLimitsFromEnv,
  WorkspaceBudgetError,
} from './usage.js';
export type { UsageStore } from './usage-store.js';
export {
  type WorkspaceServerAuth,
  WorkspaceServerError,
  type WorkspaceServerSpec,
} from './workspace-servers.js';
