import { HostError, type Logger } from '@ai-assistant/chat-types';
import type { OAuthRecords, ServerStatus } from '@ai-assistant/host-core';
import type { UsageLimits } from './usage.js';
import type { WorkspaceServerSpec } from './workspace-servers.js';

/** Who: a person of a workspace (Slack's team and user ids, or the terminal's local ones). */
export interface PersonRef {
  workspace: string;
  user: string;
}

/**
 * What {@link People} needs of a store: each person's credentials and each workspace's server
 * settings. `@ai-assistant/store`'s `Store` is one; a test can be another.
 */
export interface PeopleStore {
  /** Where OAuth flows, client registrations and refresh claims are kept (default: this process's memory). */
  oauth?: OAuthRecords;
  credentials: {
    /** Every secret of one person, by server, decrypted for one turn. */
    of(workspace: string, user: string): Promise<{ secrets: Record<string, string> }>;
    /** The servers a person has a credential for (never the secrets), and since when. */
    list(workspace: string, user: string): Promise<Array<{ server: string; updatedAt?: Date }>>;
    put(workspace: string, user: string, server: string, secret: string): Promise<void>;
    /** Whether there was one. */
    delete(workspace: string, user: string, server: string): Promise<boolean>;
    /** The people of a workspace who hold a credential for a server. */
    holders?(workspace: string, server: string): Promise<string[]>;
    /** Deletes every person's credential for a server of a workspace; how many. */
    deleteServer?(workspace: string, server: string): Promise<number>;
  };
  workspaces: {
    /** The servers a workspace's admins enabled (true) or disabled (false). */
    settings(workspace: string): Promise<Map<string, boolean>>;
    setEnabled(workspace: string, server: string, enabled: boolean, by: string): Promise<void>;
    /** In one read: servers enabled or disabled, and the admins' approval policy per server. */
    policies?(
      workspace: string,
    ): Promise<{ enabled: Map<string, boolean>; approvals: Map<string, ApprovalChoice> }>;
    setApproval?(
      workspace: string,
      server: string,
      approval: ApprovalChoice | null,
      by: string,
    ): Promise<void>;
    forgetServer?(workspace: string, server: string): Promise<void>;
    limits?(workspace: string): Promise<Record<string, number> | undefined>;
    setLimits?(workspace: string, limits: Record<string, number>): Promise<void>;
  };
  /** The servers workspaces added, each a JSON {@link WorkspaceServerSpec} kept encrypted. */
  workspaceServers?: {
    list(workspace: string): Promise<Array<{ name: string; value: string }>>;
    put(workspace: string, name: string, value: string): Promise<void>;
    delete(workspace: string, name: string): Promise<boolean>;
  };
}

/** Budgets as saved: whole numbers above 0 of the known names only; undefined when none was saved. */
export function workspaceLimitsOf(saved: Record<string, unknown> | undefined): UsageLimits | undefined {
  if (!saved) return undefined;
  return Object.fromEntries(
    workspaceLimitNames
      .filter((name) => Number.isInteger(saved[name]) && (saved[name] as number) > 0)
      .map((name) => [name, saved[name] as number]),
  );
}

/** An approval policy a workspace's admins may choose for a server. */
export type ApprovalChoice = 'auto' | 'writes' | 'always';

/** What an admin enters to add a server to their workspace. */
export type WorkspaceServerInput = Omit<WorkspaceServerSpec, 'addedAt' | 'addedBy'>;

/** The budgets a workspace's admins may set (see `UsageLimits`). */
export const workspaceLimitNames = [
  'tokensPerPersonDay',
  'tokensPerWorkspaceDay',
  'toolCallsPerPersonDay',
  'questionsPerPersonMinute',
] as const satisfies ReadonlyArray<keyof UsageLimits>;

/** A catalog server as one person of one workspace sees it. */
export interface WorkspaceServer extends ServerStatus {
  /** Whether the workspace has it (the admins' choice, else `enabled_by_default`). */
  enabled: boolean;
  /** Whether this person has stored their own credential for it. */
  connected: boolean;
  /** Since when (their credential's last change), where the store knows. */
  connectedSince?: Date;
  /** The workspace's own server (its admins added it): who added it and where it points. */
  added?: { by: string; at: string; kind: 'mcp' | 'openapi'; url: string; auth: WorkspaceServerSpec['auth'] };
  /** The admins' approval policy for it, when they chose one. */
  approvalChoice?: ApprovalChoice;
}

/** Why a server cannot take a person's credential. */
export type ConnectProblem = 'unknown server' | 'not personal' | 'no store' | 'no oauth';

const connectProblemMessages: Record<ConnectProblem, string> = {
  'unknown server': 'no server of that name is configured',
  'not personal': 'it does not take a personal credential',
  'no store': 'there is no store to keep credentials in',
  'no oauth': 'it signs in with OAuth, which this host has not set up',
};

/**
 * A server cannot take a person's credential (code CONNECT_REFUSED): returned, not thrown, by
 * `People.personalServer`; `problem` says which case, for the app's own wording.
 */
export class ConnectRefused extends HostError {
  constructor(
    readonly server: string,
    readonly problem: ConnectProblem,
  ) {
    super('CONNECT_REFUSED', `${server} cannot be connected: ${connectProblemMessages[problem]}`);
  }
}

/** A change people or admins made, for the audit trail. */
export interface PeopleAuditEntry {
  kind: 'connect' | 'disconnect' | 'admin';
  at: Date;
  workspace: string;
  person: string;
  server: string;
  detail?: string;
}

/** Options of {@link People}. */
export interface PeopleOptions {
  logger?: Logger;
  /** Each connect, disconnect and admin change is recorded here (never a secret). */
  audit?: (entry: PeopleAuditEntry) => Promise<void> | void;
  now?: () => Date;
  /** How a person connects a server in this app, for the model to tell them (e.g. "/connect github"). */
  connectHint?: (server: string) => string;
  /**
   * Hosts, addresses or CIDR ranges a workspace's server may reach although they are loopback,
   * private or link-local (`WORKSPACE_SERVERS_ALLOW`, comma-separated); by default none.
   */
  workspaceServersAllow?: string;
  /**
   * The operator's budgets (`USAGE_LIMIT_*`, `RATE_LIMIT_QUESTIONS_PER_MINUTE`): a ceiling for the
   * budgets a workspace's admins set, who may lower them, never lift them.
   */
  usageLimits?: UsageLimits;
  /**
   * The app's settings as people may read them (model, loop limits; never a secret): each view then
   * offers `host://settings`, with the workspace's budgets and the person's servers added.
   */
  appSettings?: () => Record<string, unknown>;
}
