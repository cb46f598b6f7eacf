import type { UsageDelta, UsageReservation, UsageReservationRequest, UsageTotals } from '@ai-assistant/store';

/** Where usage is counted: `@ai-assistant/store`'s `usage`. */
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
