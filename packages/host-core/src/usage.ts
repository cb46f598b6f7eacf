import { wholeNumber } from './environment.js';
import { HostError } from './errors.js';

/** Who asks. */
export interface UsagePerson {
  workspace: string;
  user: string;
}

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

/** Where usage is counted: `@ai-assistant/store`'s `usage` is one; {@link memoryUsageStore} another. */
export interface UsageStore {
  add(workspace: string, person: string, day: string, delta: UsageDelta): Promise<void>;
  totals(workspace: string, from: string, to: string, person?: string): Promise<UsageTotals>;
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

/** Usage counted in this process's memory (no store). */
export function memoryUsageStore(): UsageStore {
  const rows = new Map<string, UsageTotals & { workspace: string; person: string; day: string }>();
  return {
    async add(workspace, person, day, delta) {
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
    },
    async totals(workspace, from, to, person) {
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
    },
  };
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
      /** A workspace's own limits (its admins' settings): they may lower `limits`, never lift them. */
      workspaceLimits?: (workspace: string) => Promise<UsageLimits | undefined>;
    },
  ) {
    this.now = options.now ?? (() => new Date());
  }

  /** Whether the person may ask now; otherwise the words to tell them. */
  async admit(person: UsagePerson): Promise<{ ok: true } | { ok: false; message: string }> {
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
    const mine = await this.options.store.totals(person.workspace, day, day, person.user);
    if (
      limits.tokensPerPersonDay !== undefined &&
      mine.inputTokens + mine.outputTokens >= limits.tokensPerPersonDay
    )
      return {
        ok: false,
        message: `You have used today's budget of ${limits.tokensPerPersonDay.toLocaleString('en-US')} model tokens; ${resets}.`,
      };
    if (limits.toolCallsPerPersonDay !== undefined && mine.toolCalls >= limits.toolCallsPerPersonDay)
      return {
        ok: false,
        message: `You have used today's budget of ${limits.toolCallsPerPersonDay} tool calls; ${resets}.`,
      };
    if (limits.tokensPerWorkspaceDay !== undefined) {
      const all = await this.options.store.totals(person.workspace, day, day);
      if (all.inputTokens + all.outputTokens >= limits.tokensPerWorkspaceDay)
        return {
          ok: false,
          message: `This workspace has used today's budget of ${limits.tokensPerWorkspaceDay.toLocaleString('en-US')} model tokens; ${resets}.`,
        };
    }
    return { ok: true };
  }

  /** Adds what a turn used to the person's day. */
  record(person: UsagePerson, delta: UsageDelta): Promise<void> {
    return this.options.store.add(person.workspace, person.user, dayOf(this.now()), delta);
  }

  /** The person's use this month so far (App Home). */
  month(person: UsagePerson): Promise<UsageTotals> {
    const today = dayOf(this.now());
    return this.options.store.totals(person.workspace, `${today.slice(0, 8)}01`, today, person.user);
  }
}

function hoursUntilMidnight(now: Date): string {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  const minutes = Math.ceil((midnight - now.getTime()) / 60_000);
  return minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes} min`;
}
