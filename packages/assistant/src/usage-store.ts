import { randomUUID } from 'node:crypto';
import type {
  ReservedLimit,
  UsageDelta,
  UsageReservation,
  UsageReservationRequest,
  UsageTotals,
} from '@ai-assistant/store';

/** Where usage is counted: `@ai-assistant/store`'s `usage` is one; {@link memoryUsageStore} another. */
export interface UsageStore {
  add(workspace: string, person: string, day: string, delta: UsageDelta): Promise<void>;
  totals(workspace: string, from: string, to: string, person?: string): Promise<UsageTotals>;
  /**
   * Admits a turn against the day's budgets and holds what it may use, as one step (across replicas,
   * for a shared store): refused when a budget is spent, or when what is spent plus what turns under
   * way hold reaches it. A store without it is checked, less strictly, with {@link totals}.
   */
  reserve?(request: UsageReservationRequest): Promise<UsageReservation>;
  /** Ends a turn's reservation and adds what it used, as one step. */
  settle?(id: string, workspace: string, person: string, day: string, delta: UsageDelta): Promise<void>;
}

type Row = UsageTotals & { workspace: string; person: string; day: string };
type Held = { workspace: string; person: string; tokens: number; toolCalls: number; expiresAt: number };

/** Usage counted in this process's memory (no store); its reservations hold within this process. */
export function memoryUsageStore(): UsageStore {
  const rows = new Map<string, Row>();
  const held = new Map<string, Held>();
  const add = (workspace: string, person: string, day: string, delta: UsageDelta) => {
    const key = `${workspace}\u0000${person}\u0000${day}`;
    const row = rows.get(key) ?? {
      workspace,
      person,
      day,
      questions: 0,
      inputTokens: 0,
      outputTokens: 0,
      toolCalls: 0,
    };
    row.questions += delta.questions ?? 0;
    row.inputTokens += delta.inputTokens ?? 0;
    row.outputTokens += delta.outputTokens ?? 0;
    row.toolCalls += delta.toolCalls ?? 0;
    rows.set(key, row);
  };
  const totals = (workspace: string, from: string, to: string, person?: string): UsageTotals => {
    const sum: UsageTotals = { questions: 0, inputTokens: 0, outputTokens: 0, toolCalls: 0 };
    for (const row of rows.values()) {
      if (row.workspace !== workspace || row.day < from || row.day > to) continue;
      if (person !== undefined && row.person !== person) continue;
      sum.questions += row.questions;
      sum.inputTokens += row.inputTokens;
      sum.outputTokens += row.outputTokens;
      sum.toolCalls += row.toolCalls;
    }
    return sum;
  };
  return {
    add: async (...args) => add(...args),
    totals: async (...args) => totals(...args),
    // No await inside: the check and the hold are one step in this process.
    async reserve(request) {
      const now = Date.now();
      const live = [...held.entries()].filter(([id, entry]) => {
        if (entry.expiresAt > now) return entry.workspace === request.workspace;
        held.delete(id);
        return false;
      });
      const mine = live.filter(([, entry]) => entry.person === request.person);
      const used = totals(request.workspace, request.day, request.day, request.person);
      const all = totals(request.workspace, request.day, request.day);
      const checks: Array<[ReservedLimit, number, number]> = [
        [
          'tokensPerPersonDay',
          used.inputTokens + used.outputTokens,
          mine.reduce((sum, [, entry]) => sum + entry.tokens, 0),
        ],
        ['toolCallsPerPersonDay', used.toolCalls, mine.reduce((sum, [, entry]) => sum + entry.toolCalls, 0)],
        [
          'tokensPerWorkspaceDay',
          all.inputTokens + all.outputTokens,
          live.reduce((sum, [, entry]) => sum + entry.tokens, 0),
        ],
      ];
      for (const [limit, spent, inFlight] of checks) {
        const most = request.limits[limit];
        if (most === undefined) continue;
        if (spent >= most) return { ok: false, limit, inFlight: false };
        if (spent + inFlight >= most) return { ok: false, limit, inFlight: true };
      }
      const id = randomUUID();
      held.set(id, {
        workspace: request.workspace,
        person: request.person,
        tokens: request.tokens,
        toolCalls: request.toolCalls,
        expiresAt: now + request.holdMs,
      });
      return { ok: true, id };
    },
    async settle(id, workspace, person, day, delta) {
      held.delete(id);
      add(workspace, person, day, delta);
    },
  };
}
