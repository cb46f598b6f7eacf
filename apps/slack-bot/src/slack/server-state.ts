import type { WorkspaceServer } from '@ai-assistant/assistant';
import { escapeSlackText } from '../format/slack-text.js';

/**
 * A server's state in words, as App Home and `/assistant servers` show it. A workspace's own server
 * says how its shared connection stands now: open (connected, restarting, failed) or not open, when
 * its tool count is the one its Test found; an operator's server that starts on first use is stopped
 * until a question uses it (its tools kept from its last start); a per-person server the person
 * connected, how their own connection stands (failed with why, when it could not open).
 */
export function serverStateText(server: WorkspaceServer): string {
  // Why it failed (a server's or a transport's words, without secrets): escaped, and kept short.
  if (server.state === 'failed' && server.reason)
    return `failed: ${escapeSlackText(server.reason.replace(/`/g, "'")).slice(0, 300)}`;
  if (server.state === 'per_user')
    return server.oauth ? 'each person signs in with OAuth' : 'opens with each person’s token';
  const tools = `${server.toolCount} tool${server.toolCount === 1 ? '' : 's'}`;
  // A workspace's own server with no connection open; an operator's that starts on first use.
  if (server.state === 'idle')
    return server.added
      ? `not open now (opens when a question uses it), ${tools} at its last Test`
      : `stopped until a question uses it, ${tools}`;
  // The revision comes from the SDK's own list, escaped all the same: a server's words never format a line.
  const revision =
    server.state === 'connected' && server.protocolVersion
      ? ` (MCP ${escapeSlackText(server.protocolVersion.slice(0, 20))})`
      : '';
  return `${server.state}, ${tools}${revision}`;
}
