import { randomUUID } from 'node:crypto';
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from './schema.js';

/** What a person used: added to their day's row. */
export interface UsageDelta {
  questions?: number;
  inputTokens?: number;
  outputTokens?: number;
  toolCalls?: number;
}

/** Totals of one day, for one person or a whole workspace. */
export interface UsageTotals {
  questions: number;
  inputTokens: number;
  outputTokens: number;
  toolCalls: number;
}

/** The budgets a reservation is checked against. */
export type ReservedLimit = 'tokensPerPersonDay' | 'tokensPerWorkspaceDay' | 'toolCallsPerPersonDay';

/** What a turn asks to hold while it runs (see {@link UsageCounts.reserve}). */
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
  /** How long the hold lasts at most: one not settled by then (its replica stopped) no longer counts. */
  holdMs: number;
}

/** A reservation made (its id, to settle), or the budget that refused it and whether turns under way hold it. */
export type UsageReservation =
  | { ok: true; id: string }
  | { ok: false; limit: ReservedLimit; inFlight: boolean };

/** Advisory-lock namespace of budget checks (the first key of `pg_advisory_xact_lock(int, int)`). */
const usageLocks = 0x41_41_03;

/** Model tokens, tool calls and questions per person per day (UTC), for budgets and App Home. */
export class UsageCounts {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Admits a turn against the day's budgets and holds what it may use, in one step per workspace
   * across replicas (a transaction under the workspace's advisory lock): refused when a budget is
   * spent, or when what is spent plus what turns under way hold reaches it.
   */
  reserve(request: UsageReservationRequest): Promise<UsageReservation> {
    return this.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${usageLocks}, hashtext(${request.workspace}))`.execute(trx);
      await trx
        .deleteFrom('usage_reservations')
        .where('workspace_id', '=', request.workspace)
        .where('expires_at', '<=', sql<Date>`now()`)
        .execute();
      const used = await this.totalsIn(trx, request.workspace, request.day, request.day, request.person);
      const held = await trx
        .selectFrom('usage_reservations')
        .select([
          sql<string>`coalesce(sum(tokens) filter (where person_id = ${request.person}), 0)`.as('mine'),
          sql<string>`coalesce(sum(tool_calls) filter (where person_id = ${request.person}), 0)`.as('calls'),
          sql<string>`coalesce(sum(tokens), 0)`.as('all'),
        ])
        .where('workspace_id', '=', request.workspace)
        .executeTakeFirst();
      const { limits } = request;
      const checks: Array<[ReservedLimit, () => Promise<number>, number]> = [
        ['tokensPerPersonDay', async () => used.inputTokens + used.outputTokens, Number(held?.mine ?? 0)],
        ['toolCallsPerPersonDay', async () => used.toolCalls, Number(held?.calls ?? 0)],
        [
          'tokensPerWorkspaceDay',
          async () => {
            const all = await this.totalsIn(trx, request.workspace, request.day, request.day);
            return all.inputTokens + all.outputTokens;
          },
          Number(held?.all ?? 0),
        ],
      ];
      for (const [limit, spent, inFlight] of checks) {
        const most = limits[limit];
        if (most === undefined) continue;
        const done = await spent();
        if (done >= most) return { ok: false, limit, inFlight: false };
        if (done + inFlight >= most) return { ok: false, limit, inFlight: true };
      }
      const id = randomUUID();
      await trx
        .insertInto('usage_reservations')
        .values({
          id,
          workspace_id: request.workspace,
          person_id: request.person,
          tokens: String(request.tokens),
          tool_calls: request.toolCalls,
          expires_at: sql<Date>`now() + make_interval(secs => ${request.holdMs / 1000})`,
        })
        .execute();
      return { ok: true, id };
    });
  }

  /** Ends a turn's reservation and adds what it used, in one step. */
  async settle(id: string, workspace: string, person: string, day: string, delta: UsageDelta): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('usage_reservations').where('id', '=', id).execute();
      await this.addIn(trx, workspace, person, day, delta);
    });
  }

  /** Adds to (workspace, person, day); `day` is YYYY-MM-DD. */
  add(workspace: string, person: string, day: string, delta: UsageDelta): Promise<void> {
    return this.addIn(this.db, workspace, person, day, delta);
  }

  private async addIn(
    db: Kysely<Database> | Transaction<Database>,
    workspace: string,
    person: string,
    day: string,
    delta: UsageDelta,
  ): Promise<void> {
    const values = {
      questions: delta.questions ?? 0,
      input_tokens: String(delta.inputTokens ?? 0),
      output_tokens: String(delta.outputTokens ?? 0),
      tool_calls: delta.toolCalls ?? 0,
    };
    await db
      .insertInto('usage_daily')
      .values({ workspace_id: workspace, person_id: person, day, ...values })
      .onConflict((conflict) =>
        conflict.columns(['workspace_id', 'person_id', 'day']).doUpdateSet({
          questions: sql`usage_daily.questions + ${values.questions}`,
          input_tokens: sql`usage_daily.input_tokens + ${values.input_tokens}::bigint`,
          output_tokens: sql`usage_daily.output_tokens + ${values.output_tokens}::bigint`,
          tool_calls: sql`usage_daily.tool_calls + ${values.tool_calls}`,
        }),
      )
      .execute();
  }

  /** A day's totals from `from` to `to` (inclusive days), of one person or (no person) the workspace. */
  totals(workspace: string, from: string, to: string, person?: string): Promise<UsageTotals> {
    return this.totalsIn(this.db, workspace, from, to, person);
  }

  private async totalsIn(
    db: Kysely<Database> | Transaction<Database>,
    workspace: string,
    from: string,
    to: string,
    person?: string,
  ): Promise<UsageTotals> {
    let query = db
      .selectFrom('usage_daily')
      .select([
        sql<string>`coalesce(sum(questions), 0)`.as('questions'),
        sql<string>`coalesce(sum(input_tokens), 0)`.as('input_tokens'),
        sql<string>`coalesce(sum(output_tokens), 0)`.as('output_tokens'),
        sql<string>`coalesce(sum(tool_calls), 0)`.as('tool_calls'),
      ])
      .where('workspace_id', '=', workspace)
      .where('day', '>=', from)
      .where('day', '<=', to);
    if (person) query = query.where('person_id', '=', person);
    const row = await query.executeTakeFirst();
    return {
      questions: Number(row?.questions ?? 0),
      inputTokens: Number(row?.input_tokens ?? 0),
      outputTokens: Number(row?.output_tokens ?? 0),
      toolCalls: Number(row?.tool_calls ?? 0),
    };
  }
}
