import type { App } from '@slack/bolt';

/** Whether Slack calls this person a workspace admin or owner: asked on every admin action, never cached. */
export async function isWorkspaceAdmin(client: App['client'], user: string): Promise<boolean> {
  const info = await client.users.info({ user });
  return Boolean(info.user?.is_admin || info.user?.is_owner);
}
