import type { UsageLimits, WorkspaceServer } from '@ai-assistant/assistant';
import type { AuditRow, ScheduleRecord, UsageTotals } from '@ai-assistant/store';
import { escapeSlackText } from '../format/slack-text.js';
import { auditLine } from './audit.js';
import { button } from './buttons.js';
import { scheduleHomeBlocks } from './schedules.js';
import { serverStateText } from './server-state.js';
import { adminBlocks, approvalSelect, removeButton } from './workspace-admin.js';

/** Action ids of the App Home's buttons (each value is a server name). */
export const homeActions = {
  connect: 'home_connect',
  disconnect: 'home_disconnect',
  enable: 'home_enable',
  disable: 'home_disable',
} as const;

/** What the home tab shows one person. */
export interface HomeContent {
  servers: WorkspaceServer[];
  admin: boolean;
  usage?: UsageTotals;
  /** The workspace's latest audit entries (admins only). */
  audit?: AuditRow[];
  /** The workspace's own budgets (admins only). */
  limits?: UsageLimits;
  /** The operator's budgets, the most admins may set (admins only). */
  ceiling?: UsageLimits;
  /** Servers with OAuth sign-in can be connected here (the bot has `PUBLIC_URL` and a store). */
  oauthReady?: boolean;
  /** The person's schedules; for admins also the workspace's. */
  schedules?: { mine: ScheduleRecord[]; workspace?: ScheduleRecord[] };
}

type Block = Record<string, unknown>;

/** One server: its state and tools, whether the person is connected, and the buttons they may press. */
function serverBlocks(server: WorkspaceServer, admin: boolean, oauthReady: boolean): Block[] {
  const name = escapeSlackText(server.name);
  const state = serverStateText(server);
  // The operator's config turned it off: nothing here can turn it on, so nothing is offered.
  const offInConfig = server.state === 'disabled' && !server.added;
  // An OAuth sign-in needs the bot's public address: without it, Connect would only fail.
  const cannotSignIn = server.oauth === true && !oauthReady;
  const yours = server.personalCredential
    ? server.connected
      ? `you: connected${server.oauth ? ' with OAuth' : ''} ✓${server.connectedSince ? ` since ${server.connectedSince.toISOString().slice(0, 10)}` : ''}`
      : cannotSignIn
        ? 'you: cannot connect here (OAuth sign-in needs the bot’s PUBLIC_URL: ask the operator)'
        : 'you: not connected'
    : '';
  const added = server.added
    ? `added by <@${server.added.by.replace(/[^A-Z0-9]/gi, '')}> on ${server.added.at.slice(0, 10)} · ${escapeSlackText(new URL(server.added.url).host)}`
    : '';
  const lines = [
    `*${name}* (${server.transport})${offInConfig ? ' — _turned off in the operator’s config_' : server.enabled ? '' : ' — _disabled in this workspace_'}`,
    [state, yours].filter(Boolean).join(' · '),
    added,
    server.description ? escapeSlackText(server.description).slice(0, 300) : '',
  ].filter(Boolean);
  const buttons = [
    ...(server.personalCredential && server.enabled && !offInConfig && (server.connected || !cannotSignIn)
      ? [
          server.connected
            ? button(`Disconnect ${server.name}`, homeActions.disconnect, server.name)
            : button(`Connect ${server.name}`, homeActions.connect, server.name, 'primary'),
        ]
      : []),
    ...(admin && !offInConfig
      ? [
          server.enabled
            ? button(`Disable ${server.name}`, homeActions.disable, server.name, 'danger')
            : button(`Enable ${server.name}`, homeActions.enable, server.name),
          approvalSelect(server),
          ...(server.added ? [removeButton(server)] : []),
        ]
      : []),
  ];
  return [
    { type: 'section', text: { type: 'mrkdwn', text: lines.join('\n').slice(0, 3000) } },
    ...(buttons.length > 0
      ? [{ type: 'actions', block_id: `server:${server.name}`.slice(0, 255), elements: buttons }]
      : []),
  ];
}

/** Lines joined into sections of at most 3 000 characters (Slack's limit for a section's text). */
function textSections(lines: string[]): Block[] {
  const sections: Block[] = [];
  let current = '';
  for (const line of lines) {
    if (current && current.length + line.length + 1 > 3000) {
      sections.push({ type: 'section', text: { type: 'mrkdwn', text: current } });
      current = '';
    }
    current = current ? `${current}\n${line.slice(0, 2900)}` : line.slice(0, 2900);
  }
  if (current) sections.push({ type: 'section', text: { type: 'mrkdwn', text: current } });
  return sections;
}

/**
 * The home tab: the workspace's servers with each one's state and whether the person is connected
 * (Connect / Disconnect), their own usage this month; for admins and owners, Enable / Disable and the
 * latest 50 audit entries. At most 100 blocks (Slack's limit for a view).
 */
export function homeView(content: HomeContent) {
  const usage = content.usage;
  const blocks: Block[] = [
    { type: 'header', text: { type: 'plain_text', text: 'AI Assistant' } },
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: usage
          ? `*Your use this month:* ${usage.questions} question${usage.questions === 1 ? '' : 's'}, ${(usage.inputTokens + usage.outputTokens).toLocaleString('en-US')} model tokens, ${usage.toolCalls} tool call${usage.toolCalls === 1 ? '' : 's'}`
          : 'Mention me in a channel or write to me here to ask.',
      },
    },
    // The schedules and the admins' controls come before the list, which a long catalog may cut.
    ...(content.schedules ? scheduleHomeBlocks(content.schedules.mine, content.schedules.workspace) : []),
    ...(content.admin ? adminBlocks(content.limits, content.ceiling) : []),
    { type: 'divider' },
    { type: 'header', text: { type: 'plain_text', text: 'Servers' } },
  ];
  const servers = content.admin ? content.servers : content.servers.filter((server) => server.enabled);
  const enabled = servers.filter((server) => server.enabled);
  const catalog = enabled.reduce((sum, server) => sum + server.toolCount, 0);
  if (enabled.length > 0)
    blocks.push({
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `${catalog} tool${catalog === 1 ? '' : 's'} from ${enabled.length} server${enabled.length === 1 ? '' : 's'}; each question is offered the few that fit it (\`/assistant tools <words>\` shows which).`,
        },
      ],
    });
  if (servers.length === 0)
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: 'No MCP server is enabled for this workspace.' },
    });
  for (const server of servers)
    blocks.push(...serverBlocks(server, content.admin, content.oauthReady ?? true));
  if (content.admin && content.audit) {
    blocks.push(
      { type: 'divider' },
      { type: 'header', text: { type: 'plain_text', text: 'Latest audit entries' } },
    );
    blocks.push(
      ...(content.audit.length > 0
        ? textSections(content.audit.map(auditLine))
        : [{ type: 'section', text: { type: 'mrkdwn', text: 'Nothing in the audit trail yet.' } }]),
    );
  }
  // Slack refuses a view of more than 100 blocks: the list is cut, and says so.
  const fitted =
    blocks.length > 100
      ? [
          ...blocks.slice(0, 99),
          {
            type: 'context',
            elements: [
              { type: 'mrkdwn', text: 'More servers than one view can show: use `/assistant servers`.' },
            ],
          },
        ]
      : blocks;
  return { type: 'home' as const, blocks: fitted };
}
