import type { ToolCall } from '@ai-assistant/chat-types';
import type { ToolHost } from '../tool-host.js';
import type { ToolAuditEntry, TraceEntry } from './chat-types.js';
import type { TurnToolsOptions } from './turn-tools.js';

/** One finished call as the audit trail keeps it. */
export interface FinishedCall {
  at: Date;
  call: ToolCall;
  target: ReturnType<ToolHost['resolveTool']>;
  trace: TraceEntry;
  outcome: ToolAuditEntry['outcome'];
  /** When the asker approved it, if it needed approval. */
  approvedAt: Date | undefined;
}

/** Records a call in the audit trail (arguments as shown, redacted); never holds the answer up. */
export function recordToolAudit(
  audit: NonNullable<TurnToolsOptions['audit']>,
  { at, call, target, trace, outcome, approvedAt }: FinishedCall,
): void {
  const entry: ToolAuditEntry = {
    kind: 'tool_call',
    at,
    workspace: audit.asker.workspace,
    person: audit.asker.user,
    ...(target ? { server: target.server } : {}),
    tool: target?.tool ?? call.name,
    arguments: JSON.stringify(trace.arguments).slice(0, 2000),
    ...(approvedAt ? { approval: { by: audit.asker.user, at: approvedAt } } : {}),
    outcome,
    durationMs: trace.durationMs,
  };
  // The audit never holds the answer up, and its failure never fails the call.
  void Promise.resolve()
    .then(() => audit.record(entry))
    .catch((error: unknown) =>
      audit.logger.warn({ tool: call.name, error: String(error) }, 'audit entry not recorded'),
    );
}
