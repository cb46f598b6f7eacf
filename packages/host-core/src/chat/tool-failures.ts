import type { Logger, ToolDefinition } from '@ai-assistant/chat-types';
import { HostError } from '@ai-assistant/chat-types';
import { ToolCallError } from '../errors.js';
import type { ToolHost } from '../tool-host.js';
import type { ChatEvent } from './chat-types.js';

/** What describing a failure needs of the turn. */
export interface FailureContext {
  readonly tools: ToolDefinition[];
  readonly host: ToolHost;
  readonly emit: (event: ChatEvent) => void;
  readonly logger: Logger;
}

/**
 * A failed tool call as text the model can act on: which tool exists, whose credential is missing
 * or refused (and how they connect it), a timeout, or the server's redacted error.
 */
export function describeFailure(name: string, error: unknown, turn: FailureContext): string {
  const code = error instanceof HostError ? error.code : undefined;
  if (code === 'TOOL_NOT_FOUND') {
    const available = turn.tools.map((tool) => tool.name).join(', ');
    return `Error: there is no tool named "${name}". Available tools: ${available}.`;
  }
  if (error instanceof ToolCallError && code === 'MISSING_CREDENTIALS') {
    const server = error.server ?? '?';
    if (error.placeholders.includes('token')) {
      const hint = turn.host.credentialHint?.(server);
      if (error.refused === 403 && error.scope !== undefined) {
        turn.emit({ type: 'credential_needed', server, name, refused: true, scope: error.scope });
        return `Error: the "${server}" server needs more permission than the user granted it (it asks for scope "${error.scope}"); their credential is still valid. Tell the user to connect it again${hint ? ` (${hint})` : ''} to grant that permission, and then ask again.`;
      }
      if (error.refused) {
        turn.emit({ type: 'credential_needed', server, name, refused: true });
        return `Error: the "${server}" server refused the user's own credential (HTTP ${error.refused}): it has probably expired or been revoked. Tell the user to connect it again${hint ? ` (${hint})` : ''} and then ask again.`;
      }
      turn.emit({ type: 'credential_needed', server, name });
      return `Error: ${name} needs the user's own credential for the "${server}" server, and they have not connected one. Tell the user to connect it${hint ? ` (${hint})` : ''} and then ask again.`;
    }
    return `Error: ${name} needs credentials that were not supplied (${error.placeholders.join(', ')}). Tell the user this tool needs their credentials to be set up.`;
  }
  if (error instanceof ToolCallError && code === 'REQUEST_TIMEOUT') {
    return `Error: ${name} timed out after ${error.timeoutMs} ms (its data source did not answer). Tell the user it could not be looked up right now.`;
  }
  turn.logger.warn({ tool: name, error: String(error) }, 'tool call failed');
  const detail = error instanceof HostError ? error.message : 'the tool failed unexpectedly';
  return `Error: ${detail}. Tell the user this information could not be retrieved.`;
}
