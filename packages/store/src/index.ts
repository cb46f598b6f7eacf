export {
  type ApprovalOutcome,
  Approvals,
  type ApprovalToOpen,
  type PendingApproval,
  type RecordedDecision,
} from './approvals.js';
export { type AuditEntry, type AuditRow, AuditTrail } from './audit.js';
export {
  type AnswerFeedback,
  type ConversationMessage,
  type ConversationTally,
  maxMessageText,
  maxThreadRead,
  type PersonConversation,
  type ThreadMembership,
} from './conversation-model.js';
export { Conversations } from './conversations.js';
export { Coordination, claimRetentionMs, type EventClaim, type ThreadTurn } from './coordination.js';
export { type CredentialInfo, Credentials, type PersonCredentials } from './credentials.js';
export type { Engine } from './engines.js';
export { CredentialKeyError, Keyring, keyFileName, keyIdOf, keyVariable, newKey } from './keyring.js';
export { type LongTask, LongTasks } from './long-tasks.js';
export {
  defaultDataDir,
  openStore,
  openStoreFromEnvironment,
  type StoreOptions,
  StoreStartError,
  storeSecrets,
} from './open.js';
export {
  maxSchedulesPerPerson,
  type NewSchedule,
  type OccurrenceOutcome,
  type OrphanRun,
  type ScheduleRecord,
  type ScheduleState,
  Schedules,
} from './schedules.js';
export { type SealedOwner, SealedRecords } from './sealed.js';
export { Store } from './store.js';
export { maxCatalogBytes, ToolCatalogs } from './tool-catalogs.js';
export { type ToolVector, ToolVectors } from './tool-vectors.js';
export {
  type ReservedLimit,
  UsageCounts,
  type UsageDelta,
  type UsageReservation,
  type UsageReservationRequest,
  type UsageTotals,
} from './usage.js';
export { WorkspaceSettings } from './workspaces.js';
