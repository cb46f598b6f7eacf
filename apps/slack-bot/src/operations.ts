import {
  type ChatServiceOptions,
  memoryUsageStore,
  type PeopleOptions,
  UsageGate,
  usageLimitsFromEnv,
} from '@ai-assistant/host-core';
import type { Store } from '@ai-assistant/store';

/**
 * What the operator gets from every turn and change: the audit trail (tool calls with approvals and
 * outcomes; connects, disconnects, admins' changes) in the store, and usage counted against the
 * budgets of the environment (`USAGE_LIMIT_*`, `RATE_LIMIT_QUESTIONS_PER_MINUTE`). Without a store,
 * usage is counted in memory and nothing is audited.
 */
export function operatorHooks(
  store: Store | undefined,
  env: NodeJS.ProcessEnv,
  now?: () => Date,
): {
  chat: Pick<ChatServiceOptions, 'usage' | 'audit'>;
  people: Pick<PeopleOptions, 'audit'>;
} {
  const audit = store
    ? (entry: Parameters<Store['audit']['record']>[0]) => store.audit.record(entry)
    : undefined;
  const usage = new UsageGate({
    store: store?.usage ?? memoryUsageStore(),
    limits: usageLimitsFromEnv(env),
    ...(now ? { now } : {}),
  });
  return { chat: { usage, ...(audit ? { audit } : {}) }, people: audit ? { audit } : {} };
}
