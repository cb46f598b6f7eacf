import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

/** A Slack workspace (team), or the terminal's local one. */
export interface WorkspacesTable {
  id: string;
  /** The Enterprise Grid organisation it belongs to, when known. */
  enterprise_id: string | null;
  created_at: Timestamp;
}

/** A workspace admin's choice to enable or disable a catalog server. */
export interface WorkspaceServersTable {
  workspace_id: string;
  server: string;
  enabled: boolean;
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

/** The database as Kysely sees it. Installations and processed events come with the next migrations. */
export interface Database {
  workspaces: WorkspacesTable;
  workspace_servers: WorkspaceServersTable;
  user_credentials: UserCredentialsTable;
}
