import {
  type ApprovalChoice,
  type UsageLimits,
  type WorkspaceServer,
  type WorkspaceServerInput,
  workspaceLimitNames,
} from '@ai-assistant/host-core';
import { escapeSlackText } from '../format/slack-text.js';

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

type Block = Record<string, unknown>;
const text = (value: string) => ({ type: 'plain_text' as const, text: value });
const option = (label: string, value: string) => ({ text: text(label), value });

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
        `${server.name} is removed from this workspace, with everyone’s settings for it.`.slice(0, 300),
      ),
      confirm: text('Remove'),
      deny: text('Keep it'),
    },
  };
}

/** The admins' section of the home tab: add a server, and the workspace's budgets. */
export function adminBlocks(limits: UsageLimits | undefined): Block[] {
  const set = workspaceLimitNames.filter((name) => limits?.[name] !== undefined);
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
            ? `*Budgets:* ${set.map((name) => `${limitLabels[name]} ${limits?.[name]?.toLocaleString('en-US')}`).join(' · ')}`
            : '*Budgets:* the operator’s defaults.',
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

const limitLabels: Record<(typeof workspaceLimitNames)[number], string> = {
  tokensPerPersonDay: 'Model tokens per person per day',
  tokensPerWorkspaceDay: 'Model tokens for the workspace per day',
  toolCallsPerPersonDay: 'Tool calls per person per day',
  questionsPerPersonMinute: 'Questions per person per minute',
};

const input = (block: string, label: string, element: Block, optional = false, hint?: string): Block => ({
  type: 'input',
  block_id: block,
  label: text(label),
  optional,
  element: { action_id: 'value', ...element },
  ...(hint ? { hint: text(hint) } : {}),
});

/**
 * The add-a-server modal. `result`: what the last Test showed (its tools, or what to fix). Slack keeps
 * what was typed across an update when the blocks keep their ids.
 */
export function addServerModal(result?: string): Block {
  return {
    type: 'modal',
    callback_id: adminActions.addModal,
    title: text('Add a server'),
    submit: text('Test and add'),
    close: text('Cancel'),
    blocks: [
      input(
        serverFields.name,
        'Name',
        { type: 'plain_text_input', max_length: 30, placeholder: text('crm') },
        false,
        'Lower-case letters, digits, - and _; the model sees tools as mcp__<name>__<tool>.',
      ),
      input(serverFields.kind, 'Kind', {
        type: 'static_select',
        options: [
          option('Remote MCP server (Streamable HTTP)', 'mcp'),
          option('OpenAPI document', 'openapi'),
        ],
        initial_option: option('Remote MCP server (Streamable HTTP)', 'mcp'),
      }),
      input(
        serverFields.url,
        'Address',
        { type: 'url_text_input' },
        false,
        'The MCP endpoint (https://…/mcp), or the OpenAPI document’s URL, or the API’s base URL when you paste the document.',
      ),
      input(serverFields.auth, 'Authentication', {
        type: 'static_select',
        options: [
          option('None', 'none'),
          option('Each person’s own token', 'person'),
          option('Each person signs in (OAuth)', 'oauth'),
          option('A secret of this workspace', 'secret'),
        ],
        initial_option: option('None', 'none'),
      }),
      input(
        serverFields.header,
        'Header',
        { type: 'plain_text_input', max_length: 64, placeholder: text('Authorization') },
        true,
        'Where the token or secret goes (default Authorization: Bearer …).',
      ),
      input(
        serverFields.secret,
        'Secret or test token',
        { type: 'plain_text_input', max_length: 3000 },
        true,
        'The workspace’s secret (stored encrypted), or, for each person’s own token, yours to test with (not stored).',
      ),
      input(
        serverFields.document,
        'OpenAPI document (JSON)',
        { type: 'plain_text_input', multiline: true, max_length: 3000 },
        true,
        'Paste a short document here, or give its URL as the address.',
      ),
      input(serverFields.description, 'What it is for', { type: 'plain_text_input', max_length: 300 }, true),
      {
        type: 'actions',
        block_id: 'test',
        elements: [{ type: 'button', action_id: adminActions.testServer, text: text('Test'), value: 'test' }],
      },
      ...(result
        ? [{ type: 'section', block_id: 'result', text: { type: 'mrkdwn', text: result.slice(0, 3000) } }]
        : []),
    ],
  };
}

/** The modal after a server was added. */
export function addedModal(name: string, tools: string[]): Block {
  return {
    type: 'modal',
    title: text('Server added'),
    close: text('Done'),
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `✓ \`${escapeSlackText(name)}\` is added to this workspace with ${toolList(tools)}. It is offered from the next question.`.slice(
            0,
            3000,
          ),
        },
      },
    ],
  };
}

/** A Test's result for the modal. */
export const testedText = (tools: string[]) => `✓ Test passed: the server answered with ${toolList(tools)}.`;

function toolList(tools: string[]): string {
  if (tools.length === 0) return 'no tools';
  const shown = tools
    .slice(0, 20)
    .map((tool) => `\`${escapeSlackText(tool)}\``)
    .join(', ');
  return `${tools.length} tool${tools.length === 1 ? '' : 's'}: ${shown}${tools.length > 20 ? ', …' : ''}`;
}

type StateValues = Record<
  string,
  Record<string, { value?: string | null; selected_option?: { value?: string } | null }>
>;

/** What the admin entered in the add-a-server modal, and a token to test with. */
export function serverInputOf(values: StateValues): { input: WorkspaceServerInput; token?: string } {
  const read = (block: string) => {
    const state = values[block]?.value;
    return (state?.selected_option?.value ?? state?.value ?? '').trim();
  };
  const auth = read(serverFields.auth) || 'none';
  const secret = read(serverFields.secret);
  const input: WorkspaceServerInput = {
    name: read(serverFields.name),
    kind: read(serverFields.kind) === 'openapi' ? 'openapi' : 'mcp',
    url: read(serverFields.url),
    auth: auth as WorkspaceServerInput['auth'],
    ...(read(serverFields.header) ? { header: read(serverFields.header) } : {}),
    ...(auth === 'secret' && secret ? { secret } : {}),
    ...(read(serverFields.document) ? { document: read(serverFields.document) } : {}),
    ...(read(serverFields.description) ? { description: read(serverFields.description) } : {}),
  };
  return { input, ...(auth === 'person' && secret ? { token: secret } : {}) };
}

/** Where a field's problem is shown in the modal. */
export function blockOfField(field: string): string {
  return (serverFields as Record<string, string>)[field] ?? serverFields.url;
}

/** The budgets modal, showing the workspace's current ones. */
export function budgetsModal(limits: UsageLimits | undefined): Block {
  return {
    type: 'modal',
    callback_id: adminActions.budgetsModal,
    title: text('Budgets'),
    submit: text('Save'),
    close: text('Cancel'),
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: 'Limits for this workspace, over the operator’s. Empty: the operator’s. Days are UTC; a question past a budget is refused before the model is called, with when it resets.',
        },
      },
      ...workspaceLimitNames.map((name) =>
        input(
          name,
          limitLabels[name],
          {
            type: 'number_input',
            is_decimal_allowed: false,
            min_value: '1',
            ...(limits?.[name] !== undefined ? { initial_value: String(limits[name]) } : {}),
          },
          true,
        ),
      ),
    ],
  };
}

/** The budgets entered (whole numbers above 0; anything else left to the operator). */
export function limitsOf(values: StateValues): { limits: UsageLimits; invalid: string[] } {
  const limits: UsageLimits = {};
  const invalid: string[] = [];
  for (const name of workspaceLimitNames) {
    const raw = (values[name]?.value?.value ?? '').trim();
    if (!raw) continue;
    const number = Number(raw);
    if (Number.isInteger(number) && number > 0) limits[name] = number;
    else invalid.push(name);
  }
  return { limits, invalid };
}
