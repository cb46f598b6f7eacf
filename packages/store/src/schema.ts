import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

/** A workspace of the chat app (its team), or the terminal's local one. */
export interface WorkspacesTable {
  id: string;
  /** The Enterprise Grid organisation it belongs to, when known. */
  enterprise_id: string | null;
  /** The admins' budgets over the operator's (JSON: tokensPerPersonDay, …), or null. */
  limits: string | null;
  created_at: Timestamp;
}

/** A workspace admin's choice to enable or disable a catalog server. */
export interface WorkspaceServersTable {
  workspace_id: string;
  server: string;
  /** Null: the catalog's default (the row holds only an approval policy). */
  enabled: boolean | null;
  /** The admins' approval policy for the server (`auto`, `writes`, `always`), or null. */
  approval: string | null;
  changed_by: string | null;
  updated_at: Timestamp;
}

/** One person's secret for one server, encrypted (see keyring.ts). */
export interface UserCredentialsTable {
  workspace_id: string;
  user_id: string;
  server: string;
  /** `v1.<key id>.<iv>.<tag>.<ciphertext>`, base64url parts. */
  secret: string;
  key_id: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  last_used_at: Timestamp | null;
}

/**
 * An app's encrypted record of some kind (an app's installation, say): the store knows only whose it is,
 * for deleting a workspace or an organisation, never what it holds.
 */
export interface SealedRecordsTable {
  /** What the app keeps (`installation`, …); with `id`, the record's key and its encryption context. */
  kind: string;
  id: string;
  /** The workspace it belongs to, when one; deleted with it. */
  workspace_id: string | null;
  /** The organisation (Enterprise Grid) it belongs to, when one. */
  organisation_id: string | null;
  /** Encrypted like a credential (see keyring.ts). */
  secret: string;
  key_id: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** An event one replica took on (the dedupe across replicas, and the order within a thread). */
export interface EventClaimsTable {
  event_id: string;
  thread_key: string | null;
  /** The workspace the event came from, for deleting a workspace's claims with it. */
  workspace_id: string | null;
  /** The event's place in its thread, as the app computes it (numeric: read back as text). */
  thread_order: ColumnType<string | null, number | null, number | null>;
  /** The claiming replica; it holds an advisory lock on this key while it lives. */
  replica_key: number;
  claimed_at: Timestamp;
  finished_at: Timestamp | null;
  /** Finished by another replica because the claiming one died. */
  abandoned: ColumnType<boolean, boolean | undefined, boolean>;
}

/** A person's decision an app waits for (an approval), shared by replicas. */
export interface PendingApprovalsTable {
  id: string;
  workspace_id: string;
  /** The only person who may decide. */
  person_id: string;
  /** The replica that asked and waits (`Coordination.replicaKey`). */
  replica_key: number;
  /** The app's own description of the request (JSON). */
  detail: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  decision: 'approved' | 'denied' | 'expired' | null;
  decided_by: string | null;
  reason: string | null;
  decided_at: Timestamp | null;
}

/** One audited action: a tool call, a connect or disconnect, an admin's change. */
export interface AuditEventsTable {
  id: Generated<string>;
  at: Date;
  workspace_id: string;
  person_id: string;
  kind: string;
  server: string | null;
  tool: string | null;
  arguments: string | null;
  approved_by: string | null;
  approved_at: Date | null;
  outcome: string | null;
  duration_ms: number | null;
  detail: string | null;
}

/** What one person used on one day (UTC). */
export interface UsageDailyTable {
  workspace_id: string;
  person_id: string;
  day: string;
  questions: Generated<number>;
  input_tokens: Generated<string>;
  output_tokens: Generated<string>;
  tool_calls: Generated<number>;
}

/** What a turn under way may still use (see usage.ts). */
export interface UsageReservationsTable {
  id: string;
  workspace_id: string;
  person_id: string;
  tokens: string;
  tool_calls: number;
  expires_at: Date;
}

/** A thread an app takes part in (see conversations.ts). */
export interface ConversationThreadsTable {
  workspace_id: string;
  thread_key: string;
  history_read: boolean;
  last_at: Timestamp;
}

/** A person's message or a final answer in a thread; never a tool step. */
export interface ConversationMessagesTable {
  workspace_id: string;
  thread_key: string;
  message_id: string;
  role: 'user' | 'assistant';
  person_id: string | null;
  text: string;
  at: Timestamp;
  /** An answer's tools, as a JSON array of names. */
  tools: string | null;
}

/** A person's feedback on a final answer. */
export interface AnswerFeedbackTable {
  workspace_id: string;
  thread_key: string;
  answer_id: string;
  person_id: string;
  value: 'positive' | 'negative';
  answer_text: string | null;
  at: Timestamp;
}

/** A shared MCP server's tool list (see tool-catalogs.ts). */
export interface ToolCatalogsTable {
  key: string;
  /** The server's tools/list `tools`, as JSON. */
  tools: string;
  updated_at: Timestamp;
}

/** A tool's embedding vector, by the hash of the embeddings model and the tool's text. */
export interface ToolVectorsTable {
  /** sha256 of the model and the text, hex. */
  hash: string;
  model: string;
  dimensions: number;
  /** float32 little-endian. */
  vector: Uint8Array;
  created_at: Timestamp;
}

/** A question a person set to run on a schedule, as them, in a channel. */
export interface SchedulesTable {
  id: string;
  workspace_id: string;
  /** The person who set it: each run is their turn. */
  owner_id: string;
  channel_id: string;
  question: string;
  /** Five-field cron expression, read in `time_zone`. */
  cron: string;
  /** IANA time zone (the owner's, from the chat platform, when it was set). */
  time_zone: string;
  /** The schedule as the person said it ("毎朝8時"), for display. */
  description: string;
  /** JSON array of tool names the owner approved for this schedule's runs when confirming it. */
  approved_tools: string;
  /** `active`, `paused` or `stopped` (by an admin, or because its owner lost access). */
  state: string;
  stopped_reason: string | null;
  /** The next occurrence to run; null while paused or stopped. */
  next_run_at: Timestamp | null;
  last_run_at: Timestamp | null;
  /** `posted`, `failed`, `skipped` or `missed`, with a short detail for the owner. */
  last_status: string | null;
  last_detail: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One occurrence of a schedule: claimed by exactly one replica, which runs and posts it. */
export interface ScheduleRunsTable {
  schedule_id: string;
  /** The occurrence's time (what makes it one occurrence). */
  due_at: Timestamp;
  workspace_id: string;
  /** The replica running it (its liveness lock says whether it still lives). */
  replica_key: number;
  /** `running` (nothing posted yet), `posting`, `posted`, `failed` or `skipped`. */
  state: string;
  /** The posted message (once posted). */
  message_ts: string | null;
  detail: string | null;
  claimed_at: Timestamp;
  finished_at: Timestamp | null;
}

/** An MCP task a turn left running: followed by one replica at a time, its result posted when it ends. */
export interface LongTasksTable {
  id: string;
  workspace_id: string;
  /** Whose turn started it: followed through their view, cancelled only by them. */
  person_id: string;
  /** The model-facing tool name the task was started with. */
  tool_name: string;
  task_id: string;
  /** The app's place for its result (its own key, such as a channel and a thread). */
  place: string;
  /** The app's message that says it runs (with its Cancel button), once posted. */
  message_ref: string | null;
  /** `running`, `completed`, `failed` or `cancelled`. */
  state: string;
  replica_key: number;
  detail: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The database as Kysely sees it. */
export interface Database {
  workspaces: WorkspacesTable;
  workspace_servers: WorkspaceServersTable;
  user_credentials: UserCredentialsTable;
  sealed_records: SealedRecordsTable;
  event_claims: EventClaimsTable;
  pending_approvals: PendingApprovalsTable;
  audit_events: AuditEventsTable;
  usage_daily: UsageDailyTable;
  usage_reservations: UsageReservationsTable;
  conversation_threads: ConversationThreadsTable;
  conversation_messages: ConversationMessagesTable;
  answer_feedback: AnswerFeedbackTable;
  tool_catalogs: ToolCatalogsTable;
  tool_vectors: ToolVectorsTable;
  schedules: SchedulesTable;
  schedule_runs: ScheduleRunsTable;
  long_tasks: LongTasksTable;
}
