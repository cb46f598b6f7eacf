import { nodeCrypto } from './builtins.js';

/** What one turn used. */
export interface UsageDelta {
  questions?: number;
  inputTokens?: number;
  outputTokens?: number;
  toolCalls?: number;
}

/** Totals over some days. */
export interface UsageTotals {
  questions: number;
  inputTokens: number;
  outputTokens: number;
  toolCalls: number;
}

/** The budgets a reservation is checked against. */
export type ReservedLimit = 'tokensPerPersonDay' | 'tokensPerWorkspaceDay' | 'toolCallsPerPersonDay';

/** What a turn asks to hold while it runs (see {@link UsageStore.reserve}). */
export interface UsageReservationRequest {
  workspace: string;
  person: string;
  /** The day (YYYY-MM-DD) whose use counts. */
  day: string;
  /** What the turn is expected to use, held until it settles. */
  tokens: number;
  toolCalls: number;
  /** The budgets to check; unset ones do not apply. */
  limits: Partial<Record<ReservedLimit, number>>;
  /** How long the hold lasts at most: one not settled by then (its process stopped) no longer counts. */
  holdMs: number;
}

/** A reservation made (its id, to settle), or the budget that refused it and whether turns under way hold it. */
export type UsageReservation =
  | { ok: true; id: string }
  | { ok: false; limit: ReservedLimit; inFlight: boolean };

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
      const id = nodeCrypto().randomUUID();
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
