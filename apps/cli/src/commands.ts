import type { McpClientManager, Message } from '@ai-assistant/host-core';

/** What a slash command did. */
export type CommandOutcome = { output: string; history?: Message[]; exit?: boolean } | undefined;

export const helpText = `Commands:
  /tools     list the tools the model can use, by server
  /servers   show each MCP server and its status
  /reset     forget the conversation so far
  /help      show this help
  /exit      quit (Ctrl-C or Ctrl-D work too)`;

/** Runs a slash command; undefined when the line is not one. */
export function runCommand(line: string, mcp: McpClientManager | undefined): CommandOutcome {
  const command = line.trim().split(/\s+/)[0]?.toLowerCase();
  switch (command) {
    case '/help':
      return { output: helpText };
    case '/exit':
    case '/quit':
      return { output: '', exit: true };
    case '/reset':
      return { output: 'The conversation was reset.', history: [] };
    case '/servers': {
      if (!mcp)
        return { output: 'MCP is off (set MCP_ENABLED=true to use the servers in config/mcp_servers.json).' };
      const lines = mcp.status().map((server) => {
        const detail = server.state === 'connected' ? `${server.toolCount} tools` : (server.reason ?? '');
        return `  ${server.name} (${server.transport}): ${server.state}${detail ? ` — ${detail}` : ''}`;
      });
      return {
        output: lines.length > 0 ? `MCP servers:\n${lines.join('\n')}` : 'No MCP servers are configured.',
      };
    }
    case '/tools': {
      if (!mcp) return { output: 'MCP is off: no tools.' };
      const byServer = new Map<string, string[]>();
      for (const tool of mcp.listTools()) {
        const server = mcp.resolveTool(tool.name)?.server ?? '?';
        byServer.set(server, [
          ...(byServer.get(server) ?? []),
          `    ${tool.name} — ${tool.description.split('\n')[0]}`,
        ]);
      }
      if (byServer.size === 0) return { output: 'No tools are available.' };
      return {
        output: [...byServer.entries()]
          .map(([server, tools]) => `  ${server}:\n${tools.join('\n')}`)
          .join('\n'),
      };
    }
    default:
      return command?.startsWith('/') ? { output: `Unknown command ${command}. ${helpText}` } : undefined;
  }
}
