import { type People, startPeople } from '@ai-assistant/assistant';
import {
  EnvironmentError,
  isMcpEnabled,
  loadConfiguredServers,
  McpConfigError,
  type ServerStatus,
} from '@ai-assistant/host-core';

/** One server's line: what would start, and with which tools. */
function describe(people: People, server: ServerStatus): string {
  const tools = people.toolsOf(server.name);
  const head = `${server.name} (${server.transport})`;
  switch (server.state) {
    case 'connected':
      return `  ✓ ${head}: starts${server.protocolVersion ? ` (MCP ${server.protocolVersion})` : ''} — ${tools.length} tool${tools.length === 1 ? '' : 's'}${tools.length ? `: ${tools.join(', ')}` : ''}`;
    case 'idle':
      return `  ✓ ${head}: starts on first use (started once to list its tools, then stopped) — ${tools.length} tool${tools.length === 1 ? '' : 's'}${tools.length ? `: ${tools.join(', ')}` : ''}`;
    case 'per_user':
      return `  ✓ ${head}: opens per person with their own credential (its tools are listed once someone connects)`;
    case 'disabled':
      return `  – ${head}: disabled in the config (not started)`;
    default:
      return `  ✗ ${head}: did not start${server.reason ? ` — ${server.reason}` : ''}`;
  }
}

/**
 * `pnpm check-config`: validates the MCP server config, starts each server once to list its tools, and
 * says what the apps would have, then closes everything. Exit code 1 when the config is broken or a
 * server fails to start; 0 otherwise.
 */
export async function checkConfig(env: NodeJS.ProcessEnv, write: (text: string) => void): Promise<number> {
  if (!isMcpEnabled(env)) {
    write('MCP is off (MCP_ENABLED is not true): no servers would start.\n');
    return 0;
  }
  try {
    const { path, label, servers } = await loadConfiguredServers(env);
    if (!servers) {
      write(
        `${path}: no such file, so MCP is off. Copy config/mcp_servers.json there or set MCP_SERVERS_CONFIG.\n`,
      );
      return 1;
    }
    write(
      `${label}: valid, ${servers.length} server${servers.length === 1 ? '' : 's'}. Starting each once…\n`,
    );
  } catch (error) {
    if (!(error instanceof McpConfigError)) throw error;
    // Every problem of the file (and its local overlay) at once, each naming file, field and fix.
    const count = error.problems.length;
    write(
      `${count} problem${count === 1 ? '' : 's'} in the MCP server config; fix ${count === 1 ? 'it' : 'each'}, then run check-config again:\n`,
    );
    for (const problem of error.problems) write(`  ✗ ${problem}\n`);
    return 1;
  }
  let people: People;
  try {
    people = await startPeople({ env });
  } catch (error) {
    // A malformed setting (MCP_START_CONCURRENCY=abc): named in one line, as the chat names it.
    if (!(error instanceof EnvironmentError)) throw error;
    write(`${error.message}\n`);
    return 1;
  }
  if (!people.mcpEnabled) return 0;
  try {
    const status = people.catalog();
    for (const server of status) write(`${describe(people, server)}\n`);
    const failed = status.filter(
      (server) => !['connected', 'per_user', 'disabled', 'idle'].includes(server.state),
    );
    write(
      failed.length > 0
        ? `${failed.length} server${failed.length === 1 ? '' : 's'} failed to start: the apps would skip ${failed.length === 1 ? 'it' : 'them'} and retry.\n`
        : 'Every enabled server starts.\n',
    );
    return failed.length > 0 ? 1 : 0;
  } finally {
    await people.close();
  }
}
