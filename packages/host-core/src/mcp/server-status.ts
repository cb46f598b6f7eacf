import type { Redactor } from '../redaction.js';
import type { Connection } from './connection.js';
import type { ServerStatus } from './manager-types.js';
import { approvalPolicy, listedStates, visibleTools } from './tool-index.js';

/** A server's state and tool count, for logs, /healthz and `/servers`. */
export function statusOf(connection: Connection, redactor: Redactor): ServerStatus {
  const config = connection.config;
  return {
    name: config.name,
    transport: config.transport,
    state: connection.state,
    // A reason may quote a server's stderr or an HTTP error body: it leaves only redacted.
    ...(connection.reason ? { reason: redactor.redact(connection.reason) } : {}),
    toolCount: listedStates.has(connection.state) ? visibleTools(connection).length : 0,
    ...(connection.kind === 'mcp' &&
    connection.state === 'connected' &&
    connection.client?.getNegotiatedProtocolVersion()
      ? { protocolVersion: connection.client.getNegotiatedProtocolVersion() }
      : {}),
    approval: approvalPolicy(connection),
    personalCredential: config.personalCredential ?? false,
    ...((config.transport === 'http' || config.transport === 'sse') &&
    config.oauth?.grant === 'authorization_code'
      ? { oauth: true }
      : {}),
    enabledByDefault: config.enabledByDefault ?? true,
    ...(config.credentialHelp ? { credentialHelp: config.credentialHelp } : {}),
    ...(config.systemInstruction ? { description: config.systemInstruction } : {}),
  };
}

/**
 * Servers that cannot run now: restarting, or down for good, including one that failed at start-up
 * (its tools were never listed, and the model is told it is unavailable rather than left to guess).
 * A server stopped until its first use, or starting with its cached tools listed, is not: a call
 * waits for its start.
 */
export function unavailableOf(
  connections: Iterable<Connection>,
): Array<{ server: string; restarting: boolean }> {
  return [...connections]
    .filter(
      (connection) =>
        connection.state !== 'connected' &&
        connection.state !== 'idle' &&
        !(connection.state === 'connecting' && connection.tools.length > 0) &&
        listedStates.has(connection.state),
    )
    .map((connection) => ({ server: connection.config.name, restarting: connection.state !== 'failed' }));
}

/**
 * The `system_instruction` of every server whose tools are listed, then the instructions the server
 * itself gave at initialize (unless `server_instructions: false`). A server that never connected has
 * no tools to describe: it is named as unavailable instead.
 */
export function instructionsOf(
  connections: Iterable<Connection>,
  redactor: Redactor,
): Array<{ server: string; text: string }> {
  return [...connections]
    .filter((connection) => listedStates.has(connection.state) && visibleTools(connection).length > 0)
    .flatMap((connection) => {
      const server = connection.config.name;
      const configured = connection.config.systemInstruction
        ? [{ server, text: connection.config.systemInstruction }]
        : [];
      const own =
        connection.config.serverInstructions !== false && connection.instructions
          ? [{ server, text: redactor.redact(connection.instructions) }]
          : [];
      return [...configured, ...own];
    });
}
