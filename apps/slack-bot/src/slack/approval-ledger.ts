import type { ApprovalOutcome, ApprovalToOpen, PendingApproval, RecordedDecision } from '@ai-assistant/store';

/**
 * Where the approval requests waiting for a person live: the store's `Approvals` (shared by replicas,
 * so a press reaching any replica counts) or, without a store, {@link MemoryApprovals} (this process).
 */
export interface ApprovalLedger {
  open(request: ApprovalToOpen): Promise<void>;
  /** Replaces the request's detail (its message's ts, once posted). */
  describe(id: string, detail: string): Promise<void>;
  countWaiting(workspace: string, person: string): Promise<number>;
  get(id: string): Promise<PendingApproval | undefined>;
  /** True when this decision is the one recorded (the first, and by the request's person). */
  decide(id: string, decision: { outcome: ApprovalOutcome; by?: string; reason?: string }): Promise<boolean>;
  /** The decision, once recorded; rejects when `signal` aborts. */
  wait(id: string, options?: { signal?: AbortSignal }): Promise<RecordedDecision>;
}

/** A decided request is kept this long, for a wait that gave up at that moment to read its decision. */
const keepDecidedMs = 60_000;

/** The ledger of one process, for a bot without a store: a press must reach the replica that asked. */
export class MemoryApprovals implements ApprovalLedger {
  private readonly requests = new Map<string, PendingApproval>();
  private readonly waiters = new Map<string, Set<(decision: RecordedDecision) => void>>();

  async open(request: ApprovalToOpen): Promise<void> {
    this.requests.set(request.id, {
      id: request.id,
      workspace: request.workspace,
      person: request.person,
      replicaKey: 0,
      detail: request.detail,
      createdAt: new Date(),
      expiresAt: request.expiresAt,
    });
  }

  async describe(id: string, detail: string): Promise<void> {
    const request = this.requests.get(id);
    if (request) request.detail = detail;
  }

  async countWaiting(workspace: string, person: string): Promise<number> {
    const now = Date.now();
    return [...this.requests.values()].filter(
      (request) =>
        request.workspace === workspace &&
        request.person === person &&
        !request.decision &&
        request.expiresAt.getTime() > now,
    ).length;
  }

  async get(id: string): Promise<PendingApproval | undefined> {
    return this.requests.get(id);
  }

  async decide(
    id: string,
    decision: { outcome: ApprovalOutcome; by?: string; reason?: string },
  ): Promise<boolean> {
    const request = this.requests.get(id);
    if (!request || request.decision) return false;
    if (decision.outcome !== 'expired' && decision.by !== request.person) return false;
    request.decision = {
      outcome: decision.outcome,
      by: decision.by ?? null,
      reason: decision.reason ?? null,
      decidedAt: new Date(),
    };
    for (const wake of this.waiters.get(id) ?? []) wake(request.decision);
    setTimeout(() => this.requests.delete(id), keepDecidedMs).unref();
    return true;
  }

  wait(id: string, options: { signal?: AbortSignal } = {}): Promise<RecordedDecision> {
    const { signal } = options;
    const decided = this.requests.get(id)?.decision;
    if (decided) return Promise.resolve(decided);
    if (!this.requests.has(id))
      return Promise.resolve({ outcome: 'expired', by: null, reason: null, decidedAt: new Date() });
    return new Promise((resolve, reject) => {
      const listeners = this.waiters.get(id) ?? new Set();
      this.waiters.set(id, listeners);
      const done = () => {
        listeners.delete(listener);
        if (listeners.size === 0) this.waiters.delete(id);
        signal?.removeEventListener('abort', onAbort);
      };
      const listener = (decision: RecordedDecision) => {
        done();
        resolve(decision);
      };
      const onAbort = () => {
        done();
        reject(signal?.reason);
      };
      listeners.add(listener);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
