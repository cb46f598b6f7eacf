// The fake Slack's installation and token rules: `oauth.v2.access`, and which tokens it accepts.
import type { SlackState } from './fake-slack-state.js';
import type { FakeWorkspace } from './fake-slack-types.js';

export type Args = Record<string, unknown>;
export type Answer = Record<string, unknown>;

/** The bot id Slack gives the app in a workspace. */
export const botIdIn = (workspace: FakeWorkspace) => workspace.botId ?? `B_${workspace.team}`;

/** Slack's rules for `oauth.v2.access`: the app's own credentials, a code issued for it, used once. */
export function oauthAccess(state: SlackState, args: Args): Answer {
  const app = state.oauthApp;
  if (!app || args.client_id !== app.clientId) return { ok: false, error: 'invalid_client_id' };
  if (args.client_secret !== app.clientSecret) return { ok: false, error: 'bad_client_secret' };
  const installed = state.codes.get(String(args.code ?? ''));
  if (!installed) return { ok: false, error: 'invalid_code' };
  state.codes.delete(String(args.code));
  return {
    ok: true,
    app_id: 'A0001',
    authed_user: { id: 'UINSTALLER' },
    scope: 'app_mentions:read,chat:write,commands',
    token_type: 'bot',
    access_token: installed.botToken,
    bot_user_id: installed.botUserId,
    team: installed.orgWide ? null : { id: installed.team, name: installed.team },
    enterprise: installed.enterprise ? { id: installed.enterprise, name: installed.enterprise } : null,
    is_enterprise_install: installed.orgWide === true,
  };
}

/**
 * With workspaces added, only the tokens Slack issued are accepted, and `auth.test` answers for the
 * token's workspace; undefined lets the call go on.
 */
export function authorize(state: SlackState, method: string, token: string | undefined): Answer | undefined {
  if (state.workspaces.size === 0) return undefined;
  const workspace = state.byToken(token);
  if (!token) return { ok: false, error: 'not_authed' };
  if (!workspace) return { ok: false, error: 'invalid_auth' };
  if (method !== 'auth.test') return undefined;
  return {
    ok: true,
    user_id: workspace.botUserId,
    bot_id: botIdIn(workspace),
    user: 'assistant',
    team_id: workspace.orgWide ? undefined : workspace.team,
    enterprise_id: workspace.enterprise,
    is_enterprise_install: workspace.orgWide === true,
    url: 'https://example.slack.com/',
  };
}
