import { HostError } from '@ai-assistant/chat-types';
import { wholeNumber } from '@ai-assistant/host-core';
import type { ReservedLimit, UsageDelta, UsageTotals } from '@ai-assistant/store';
import type { UsageStore } from './usage-store.js';

/** Who asks. */
export interface UsagePerson {
  workspace: string;
  user: string;
}

/** Budgets (per UTC day) and the per-person rate; unset ones do not apply. */
export interface UsageLimits {
  tokensPerPersonDay?: number;
  tokensPerWorkspaceDay?: number;
  toolCallsPerPersonDay?: number;
  questionsPerPersonMinute?: number;
}

/** A budget a workspace's admins may not set: above the operator's, which is their ceiling. */
export class WorkspaceBudgetError extends HostError {
  override name = 'WorkspaceBudgetError';
  constructor(
    readonly field: keyof UsageLimits,
    message: string,
  ) {
    super('WORKSPACE_BUDGET_INVALID', message);
  }
}

/**
 * The limits that hold in a workspace: the operator's are a ceiling its admins may lower, never lift
 * (the smaller of the two applies); one the operator left unset is the admins' to choose.
 */
export function effectiveLimits(operator: UsageLimits, workspace: UsageLimits | undefined): UsageLimits {
  const limits: UsageLimits = { ...operator };
  for (const [name, value] of Object.entries(workspace ?? {}) as Array<[keyof UsageLimits, number]>) {
    const ceiling = operator[name];
    if (value !== undefined) limits[name] = ceiling === undefined ? value : Math.min(ceiling, value);
  }
  return limits;
}

/**
 * The budgets of the environment: `USAGE_LIMIT_TOKENS_PER_PERSON_DAY`, `USAGE_LIMIT_TOKENS_PER_WORKSPACE_DAY`,
 * `USAGE_LIMIT_TOOL_CALLS_PER_PERSON_DAY` and `RATE_LIMIT_QUESTIONS_PER_MINUTE` (whole numbers; a
 * malformed one is an `EnvironmentError` naming it).
 */
export function usageLimitsFromEnv(env: NodeJS.ProcessEnv): UsageLimits {
  const read = (name: string) => wholeNumber(env, name, undefined, 1);
  const limits: UsageLimits = {
    tokensPerPersonDay: read('USAGE_LIMIT_TOKENS_PER_PERSON_DAY'),
    tokensPerWorkspaceDay: read('USAGE_LIMIT_TOKENS_PER_WORKSPACE_DAY'),
    toolCallsPerPersonDay: read('USAGE_LIMIT_TOOL_CALLS_PER_PERSON_DAY'),
    questionsPerPersonMinute: read('RATE_LIMIT_QUESTIONS_PER_MINUTE'),
  };
  return Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined));
}

const dayOf = (date: Date) => date.toISOString().slice(0, 10);

/**
 * Counts what each turn uses (model tokens, tool calls, questions) per person per day, and stops a turn
 * before the model is called when a budget is spent (with when it resets) or a person asks faster than
 * the per-minute rate (counted per replica). Per-workspace limits, when given, may lower the operator's.
 */
export class UsageGate {
  private readonly recent = new Map<string, number[]>();
  private readonly now: () => Date;

  constructor(
    private readonly options: {
      store: UsageStore;
      limits: UsageLimits;
      now?: () => Date;
      /**
       * What each admitted turn holds against the budgets until it ends (default 2 000 tokens, 1 tool
       * call, for at most 15 minutes): a store with reservations refuses a turn when what is spent plus
       * what turns under way hold reaches a budget.
       */
      reserve?: { tokens?: number; toolCalls?: number; holdMs?: number };
      /** A workspace's own limits (its admins' settings): they may lower `limits`, never lift them. */
      workspaceLimits?: (workspace: string) => Promise<UsageLimits | undefined>;
    },
  ) {
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Whether the person may ask now; otherwise the words to tell them. With a budget, an admitted turn
   * holds what it may use (`reservation`) until {@link record} settles it, so turns asked at once
   * cannot all pass a budget that only one of them fits.
   */
  async admit(
    person: UsagePerson,
  ): Promise<{ ok: true; reservation?: string } | { ok: false; message: string }> {
    const now = this.now();
    const limits = effectiveLimits(
      this.options.limits,
      await this.options.workspaceLimits?.(person.workspace),
    );
    if (limits.questionsPerPersonMinute !== undefined) {
      const key = `${person.workspace}\u0000${person.user}`;
      const window = (this.recent.get(key) ?? []).filter((at) => now.getTime() - at < 60_000);
      if (window.length >= limits.questionsPerPersonMinute) {
        const wait = Math.ceil((60_000 - (now.getTime() - (window[0] as number))) / 1000);
        this.recent.set(key, window);
        return {
          ok: false,
          message: `You are asking faster than this workspace allows (${limits.questionsPerPersonMinute} questions a minute). Try again in ${wait} s.`,
        };
      }
      window.push(now.getTime());
      this.recent.set(key, window);
    }
    const budgeted =
      limits.tokensPerPersonDay !== undefined ||
      limits.tokensPerWorkspaceDay !== undefined ||
      limits.toolCallsPerPersonDay !== undefined;
    if (!budgeted) return { ok: true };
    const day = dayOf(now);
    const resets = `it resets at 00:00 UTC (in ${hoursUntilMidnight(now)})`;
    const store = this.options.store;
    if (store.reserve) {
      const reserve = { tokens: 2000, toolCalls: 1, holdMs: 15 * 60_000, ...this.options.reserve };
      const held = await store.reserve({
        workspace: person.workspace,
        person: person.user,
        day,
        ...reserve,
        limits: {
          ...pick(limits, 'tokensPerPersonDay'),
          ...pick(limits, 'tokensPerWorkspaceDay'),
          ...pick(limits, 'toolCallsPerPersonDay'),
        },
      });
      if (held.ok) return { ok: true, reservation: held.id };
      return { ok: false, message: refusal(held.limit, limits[held.limit] as number, held.inFlight, resets) };
    }
    // A store without reservations: what is spent only (turns under way are not counted).
    const mine = await store.totals(person.workspace, day, day, person.user);
    if (
      limits.tokensPerPersonDay !== undefined &&
      mine.inputTokens + mine.outputTokens >= limits.tokensPerPersonDay
    )
      return { ok: false, message: refusal('tokensPerPersonDay', limits.tokensPerPersonDay, false, resets) };
    if (limits.toolCallsPerPersonDay !== undefined && mine.toolCalls >= limits.toolCallsPerPersonDay)
      return {
        ok: false,
        message: refusal('toolCallsPerPersonDay', limits.toolCallsPerPersonDay, false, resets),
      };
    if (limits.tokensPerWorkspaceDay !== undefined) {
      const all = await store.totals(person.workspace, day, day);
      if (all.inputTokens + all.outputTokens >= limits.tokensPerWorkspaceDay)
        return {
          ok: false,
          message: refusal('tokensPerWorkspaceDay', limits.tokensPerWorkspaceDay, false, resets),
        };
    }
    return { ok: true };
  }

  /**
   * Adds what a turn used to the person's day (a failed or cancelled turn's too); with the
   * `reservation` {@link admit} made, its hold ends in the same step.
   */
  record(person: UsagePerson, delta: UsageDelta, reservation?: string): Promise<void> {
    const { store } = this.options;
    const day = dayOf(this.now());
    return reservation && store.settle
      ? store.settle(reservation, person.workspace, person.user, day, delta)
      : store.add(person.workspace, person.user, day, delta);
  }

  /** The person's use this month so far (App Home). */
  month(person: UsagePerson): Promise<UsageTotals> {
    const today = dayOf(this.now());
    return this.options.store.totals(person.workspace, `${today.slice(0, 8)}01`, today, person.user);
  }
}

const pick = (limits: UsageLimits, name: ReservedLimit) =>
  limits[name] !== undefined ? { [name]: limits[name] } : {};

/** Why a turn is refused: a budget spent, or held by the questions still being answered. */
function refusal(limit: ReservedLimit, most: number, inFlight: boolean, resets: string): string {
  const amount =
    limit === 'toolCallsPerPersonDay'
      ? `${most.toLocaleString('en-US')} tool calls`
      : `${most.toLocaleString('en-US')} model tokens`;
  if (inFlight)
    return limit === 'tokensPerWorkspaceDay'
      ? `Questions still being answered in this workspace may use the rest of today's budget of ${amount}; ask again when they are done.`
      : `Your questions still being answered may use the rest of today's budget of ${amount}; ask again when they are done.`;
  return limit === 'tokensPerWorkspaceDay'
    ? `This workspace has used today's budget of ${amount}; ${resets}.`
    : `You have used today's budget of ${amount}; ${resets}.`;
}

function hoursUntilMidnight(now: Date): string {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  const minutes = Math.ceil((midnight - now.getTime()) / 60_000);
  return minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes} min`;
}
