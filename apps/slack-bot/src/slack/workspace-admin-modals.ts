import { type UsageLimits, type WorkspaceServerInput, workspaceLimitNames } from '@ai-assistant/assistant';
import { clipEscaped, escapeSlackText } from '../format/slack-text.js';
import { adminActions, type Block, limitLabels, option, serverFields, text } from './workspace-admin.js';

const input = (block: string, label: string, element: Block, optional = false, hint?: string): Block => ({
  type: 'input',
  block_id: block,
  label: text(label),
  optional,
  element: { action_id: 'value', ...element },
  ...(hint ? { hint: text(hint) } : {}),
});

/**
 * The add-a-server modal. `result`: what the last Test showed (its tools, or what to fix), as mrkdwn
 * from `testedText` or `testFailedText`. Slack keeps what was typed across an update when the blocks
 * keep their ids.
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
        ? [{ type: 'section', block_id: 'result', text: { type: 'mrkdwn', text: clipEscaped(result, 3000) } }]
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

/**
 * A failed Test for the modal. The problem may quote the server (its error text): escaped, so Slack shows
 * it as written and parses no link, mention or `<!channel>` in it.
 */
export const testFailedText = (problem: string) => `✗ ${escapeSlackText(problem)}`;

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

/**
 * The budgets modal, showing the workspace's current ones. `ceiling`: the operator's, the most an
 * admin may set (each field says it).
 */
export function budgetsModal(limits: UsageLimits | undefined, ceiling: UsageLimits = {}): Block {
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
          text: 'Limits for this workspace: they may lower the operator’s, never lift them. Empty: the operator’s. Days are UTC; a question past a budget is refused before the model is called, with when it resets.',
        },
      },
      ...workspaceLimitNames.map((name) => {
        const most = ceiling[name];
        // A budget saved above the ceiling (before there was one) shows as what applies.
        const current =
          most !== undefined && limits?.[name] !== undefined ? Math.min(most, limits[name]) : limits?.[name];
        return input(
          name,
          limitLabels[name],
          {
            type: 'number_input',
            is_decimal_allowed: false,
            min_value: '1',
            ...(most !== undefined ? { max_value: String(most) } : {}),
            ...(current !== undefined ? { initial_value: String(current) } : {}),
          },
          true,
          most !== undefined ? `At most ${most.toLocaleString('en-US')} (the operator’s limit).` : undefined,
        );
      }),
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
