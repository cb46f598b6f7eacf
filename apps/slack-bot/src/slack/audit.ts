import type { Logger } from '@ai-assistant/host-core';
import type { AuditRow, Store } from '@ai-assistant/store';
import { escapeSlackText } from '../format/slack-text.js';

/** How long the audit keeps entries (`AUDIT_RETENTION_DAYS`, default 90). */
export function auditRetentionDays(env: NodeJS.ProcessEnv): number {
  const raw = env.AUDIT_RETENTION_DAYS?.trim();
  const days = raw ? Number(raw) : 90;
  if (!Number.isInteger(days) || days < 1)
    throw new Error('AUDIT_RETENTION_DAYS must be a whole number of days ≥ 1');
  return days;
}

/** Deletes audit entries past the retention now and once a day; stop() ends it. */
export function pruneAuditDaily(
  store: Store,
  days: number,
  logger: Logger,
  now: () => Date = () => new Date(),
): { stop(): void } {
  const prune = () =>
    void store.audit
      .prune(new Date(now().getTime() - days * 86_400_000))
      .then((count) => {
        if (count > 0) logger.info({ count, days }, 'audit entries past their retention deleted');
      })
      .catch((error: unknown) => logger.warn({ error }, 'could not prune the audit trail'));
  prune();
  const timer = setInterval(prune, 86_400_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** What `/assistant audit` filters by: `@person` (a Slack mention or user id) or a server name. */
export function auditFilter(argument: string): { person?: string; server?: string } {
  const mention = /^<@([A-Z0-9]+)(?:\|[^>]*)?>$/.exec(argument)?.[1];
  if (mention) return { person: mention };
  if (/^U[A-Z0-9]{5,}$/.test(argument)) return { person: argument };
  return argument ? { server: argument } : {};
}

/** One audit entry as a line for admins (tool and argument texts escaped: they may quote a model). */
export function auditLine(row: AuditRow): string {
  const when = row.at.toISOString().slice(0, 16).replace('T', ' ');
  const who = `<@${row.person}>`;
  if (row.kind !== 'tool_call')
    return `• ${when} ${who} ${row.kind}${row.server ? ` \`${escapeSlackText(row.server)}\`` : ''}${row.detail ? ` — ${escapeSlackText(row.detail)}` : ''}`;
  const approval = row.approval
    ? `approved by <@${row.approval.by}>`
    : row.outcome === 'denied'
      ? 'not approved'
      : 'auto';
  const args = row.arguments ? ` \`${escapeSlackText(row.arguments.slice(0, 200)).replace(/`/g, "'")}\`` : '';
  return `• ${when} ${who} \`${escapeSlackText(`${row.server ?? '?'}/${row.tool ?? '?'}`)}\`${args} → ${row.outcome ?? '?'}${row.durationMs !== undefined ? ` (${row.durationMs} ms)` : ''}, ${approval}`;
}
