import {
  type ApprovalChoice,
  effectiveLimits,
  type UsageLimits,
  type WorkspaceServer,
  workspaceLimitNames,
} from '@ai-assistant/assistant';

/** Action ids and modal callback ids of the admins' part of the App Home. */
export const adminActions = {
  addServer: 'home_add_server',
  removeServer: 'home_remove_server',
  /** A static_select per server: its value is `<policy>:<server>` (`default:<server>` resets it). */
  approval: 'home_approval',
  budgets: 'home_budgets',
  /** The Test button inside the add-a-server modal. */
  testServer: 'home_test_server',
  addModal: 'workspace_server_add',
  budgetsModal: 'workspace_budgets',
} as const;

/** The add-a-server modal's input blocks (each input's action id is `value`). */
export const serverFields = {
  name: 'ws_name',
  kind: 'ws_kind',
  url: 'ws_url',
  auth: 'ws_auth',
  header: 'ws_header',
  secret: 'ws_secret',
  document: 'ws_document',
  description: 'ws_description',
} as const;

export type Block = Record<string, unknown>;
export const text = (value: string) => ({ type: 'plain_text' as const, text: value });
export const option = (label: string, value: string) => ({ text: text(label), value });

const approvalLabels: Record<ApprovalChoice, string> = {
  auto: 'Approval: none',
  writes: 'Approval: writes',
  always: 'Approval: every call',
};

/** How strict each policy is: admins of the operator's servers may only ask for more approvals. */
const strictness = { auto: 0, writes: 1, always: 2 } as const;

/**
 * The approval select of one server (admins): for the operator's servers only policies at least as
 * strict as the operator's (admins can ask for more approvals, never fewer); any for the workspace's own.
 */
export function approvalSelect(server: WorkspaceServer): Block {
  const own = typeof server.approval === 'string' ? server.approval : 'writes';
  const floor = server.added ? 0 : (strictness[own as ApprovalChoice] ?? 1);
  const choices = (Object.keys(strictness) as ApprovalChoice[]).filter(
    (choice) => strictness[choice] >= floor,
  );
  const options = [
    option(
      `Approval: server default (${Array.isArray(server.approval) ? 'listed tools' : own})`,
      `default:${server.name}`,
    ),
    ...choices.map((choice) => option(approvalLabels[choice], `${choice}:${server.name}`)),
  ].map((entry) => ({ ...entry, value: entry.value.slice(0, 150) }));
  const chosen = server.approvalChoice
    ? options.find((entry) => entry.value === `${server.approvalChoice}:${server.name}`)
    : options[0];
  return {
    type: 'static_select',
    action_id: adminActions.approval,
    placeholder: text('Approval'),
    options,
    ...(chosen ? { initial_option: chosen } : {}),
  };
}

/** A select's value back to (policy, server); undefined when malformed. */
export function parseApprovalValue(
  value: string,
): { server: string; policy: ApprovalChoice | null } | undefined {
  const at = value.indexOf(':');
  if (at <= 0) return undefined;
  const policy = value.slice(0, at);
  const server = value.slice(at + 1);
  if (!server) return undefined;
  if (policy === 'default') return { server, policy: null };
  return policy in strictness ? { server, policy: policy as ApprovalChoice } : undefined;
}

/** The Remove button of a server the workspace added (with Slack's confirm dialog). */
export function removeButton(server: WorkspaceServer): Block {
  return {
    type: 'button',
    action_id: adminActions.removeServer,
    text: text(`Remove ${server.name}`.slice(0, 75)),
    value: server.name,
    style: 'danger',
    confirm: {
      title: text('Remove this server?'),
      text: text(
        `${server.name} is removed from this workspace, with everyone’s settings and connections for it (their tokens are deleted; OAuth sign-ins revoked).`.slice(
          0,
          300,
        ),
      ),
      confirm: text('Remove'),
      deny: text('Keep it'),
    },
  };
}

/**
 * The admins' section of the home tab: add a server, and the budgets that apply (the workspace's,
 * within the operator's `ceiling`, which each names).
 */
export function adminBlocks(saved: UsageLimits | undefined, ceiling: UsageLimits = {}): Block[] {
  const limits = effectiveLimits(ceiling, saved);
  const set = workspaceLimitNames.filter((name) => limits[name] !== undefined);
  const most = (name: (typeof workspaceLimitNames)[number]) =>
    ceiling[name] !== undefined ? ` (the operator’s ceiling: ${ceiling[name].toLocaleString('en-US')})` : '';
  return [
    { type: 'divider' },
    { type: 'header', text: text('For admins') },
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: [
          '*Add a server* for this workspace: a remote MCP server or an OpenAPI document. Commands are never run from Slack: those the operator adds in the config file.',
          set.length > 0
            ? `*Budgets:* ${set.map((name) => `${limitLabels[name]} ${limits[name]?.toLocaleString('en-US')}${most(name)}`).join(' · ')}`
            : '*Budgets:* none.',
        ].join('\n'),
      },
    },
    {
      type: 'actions',
      block_id: 'admin',
      elements: [
        {
          type: 'button',
          action_id: adminActions.addServer,
          text: text('Add a server'),
          value: 'add',
          style: 'primary',
        },
        { type: 'button', action_id: adminActions.budgets, text: text('Budgets'), value: 'budgets' },
      ],
    },
  ];
}

export const limitLabels: Record<(typeof workspaceLimitNames)[number], string> = {
  tokensPerPersonDay: 'Model tokens per person per day',
  tokensPerWorkspaceDay: 'Model tokens for the workspace per day',
  toolCallsPerPersonDay: 'Tool calls per person per day',
  questionsPerPersonMinute: 'Questions per person per minute',
};
