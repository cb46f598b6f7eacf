import { type Kysely, sql } from 'kysely';
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

/** Model tokens, tool calls and questions per person per day (UTC), for budgets and App Home. */
export class UsageCounts {
  constructor(private readonly db: Kysely<Database>) {}

  /** Adds to (workspace, person, day); `day` is YYYY-MM-DD. */
  async add(workspace: string, person: string, day: string, delta: UsageDelta): Promise<void> {
    const values = {
      questions: delta.questions ?? 0,
      input_tokens: String(delta.inputTokens ?? 0),
      output_tokens: String(delta.outputTokens ?? 0),
      tool_calls: delta.toolCalls ?? 0,
    };
    await this.db
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
  async totals(workspace: string, from: string, to: string, person?: string): Promise<UsageTotals> {
    let query = this.db
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
