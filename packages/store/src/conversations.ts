import { type Kysely, sql } from 'kysely';
import {
  type AnswerFeedback,
  type ConversationMessage,
  type ConversationTally,
  maxAnswerTools,
  maxMessageText,
  maxThreadRead,
  type PersonConversation,
  type ThreadMembership,
  toMessage,
} from './conversation-model.js';
import type { Database } from './schema.js';

/**
 * Conversation history, by thread: the threads an app takes part in and the messages said there —
 * people's messages and final answers, never tool steps. Keys are the app's own; the store only orders,
 * keeps and forgets them.
 */
export class Conversations {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Records that the app takes part in a thread (idempotent). `historyRead` says whether there is
   * nothing earlier to read (a thread the app starts); a thread joined before keeps its own.
   */
  async join(
    workspace: string,
    thread: string,
    options: { historyRead: boolean; at: Date },
  ): Promise<ThreadMembership> {
    const inserted = await this.db
      .insertInto('conversation_threads')
      .values({
        workspace_id: workspace,
        thread_key: thread,
        history_read: options.historyRead,
        last_at: options.at,
      })
      .onConflict((conflict) => conflict.columns(['workspace_id', 'thread_key']).doNothing())
      .returning('history_read')
      .executeTakeFirst();
    if (inserted) return { joined: true, historyRead: inserted.history_read };
    const row = await this.db
      .selectFrom('conversation_threads')
      .select('history_read')
      .where('workspace_id', '=', workspace)
      .where('thread_key', '=', thread)
      .executeTakeFirst();
    return { joined: false, historyRead: row?.history_read ?? options.historyRead };
  }

  /** Whether the app takes part in a thread: one key lookup, nothing asked of anyone. */
  async isMember(workspace: string, thread: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('conversation_threads')
      .select('thread_key')
      .where('workspace_id', '=', workspace)
      .where('thread_key', '=', thread)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The thread's earlier messages have been read from the source. */
  async markHistoryRead(workspace: string, thread: string): Promise<void> {
    await this.db
      .updateTable('conversation_threads')
      .set({ history_read: true })
      .where('workspace_id', '=', workspace)
      .where('thread_key', '=', thread)
      .execute();
  }

  /** Records (or replaces) a message of a thread; the text is cut at {@link maxMessageText}. */
  async record(workspace: string, thread: string, message: ConversationMessage): Promise<void> {
    const text = message.text.slice(0, maxMessageText);
    const tools = message.tools?.length ? JSON.stringify(message.tools.slice(0, maxAnswerTools)) : null;
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('conversation_messages')
        .values({
          workspace_id: workspace,
          thread_key: thread,
          message_id: message.id,
          role: message.role,
          person_id: message.person ?? null,
          text,
          at: message.at,
          tools,
        })
        .onConflict((conflict) =>
          conflict
            .columns(['workspace_id', 'thread_key', 'message_id'])
            .doUpdateSet(tools ? { text, tools } : { text }),
        )
        .execute();
      await trx
        .updateTable('conversation_threads')
        .set({ last_at: sql`greatest(last_at, ${message.at})` })
        .where('workspace_id', '=', workspace)
        .where('thread_key', '=', thread)
        .execute();
    });
  }

  /** Applies an edit to a recorded message; false when it was never recorded. */
  async edit(workspace: string, thread: string, id: string, text: string): Promise<boolean> {
    const result = await this.db
      .updateTable('conversation_messages')
      .set({ text: text.slice(0, maxMessageText) })
      .where('workspace_id', '=', workspace)
      .where('thread_key', '=', thread)
      .where('message_id', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Forgets a deleted message; false when it was never recorded. */
  async remove(workspace: string, thread: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('conversation_messages')
      .where('workspace_id', '=', workspace)
      .where('thread_key', '=', thread)
      .where('message_id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** The thread so far: its last `limit` messages (at most {@link maxThreadRead}), oldest first. */
  async thread(workspace: string, thread: string, limit: number): Promise<ConversationMessage[]> {
    const rows = await this.db
      .selectFrom('conversation_messages')
      .select(['message_id', 'role', 'person_id', 'text', 'at', 'tools'])
      .where('workspace_id', '=', workspace)
      .where('thread_key', '=', thread)
      .orderBy('at', 'desc')
      .orderBy('message_id', 'desc')
      .limit(Math.max(0, Math.min(limit, maxThreadRead)))
      .execute();
    return rows.reverse().map(toMessage);
  }

  /**
   * One person's own recent conversations in a workspace, newest thread first: only what they wrote and
   * the answers given to them — never anyone else's messages, even in a thread they shared.
   */
  async ofPerson(
    workspace: string,
    person: string,
    options: { threads?: number; messagesPerThread?: number; since?: Date } = {},
  ): Promise<PersonConversation[]> {
    const threadCount = Math.max(0, Math.min(options.threads ?? 10, 50));
    const perThread = Math.max(0, Math.min(options.messagesPerThread ?? 20, maxThreadRead));
    let latest = this.db
      .selectFrom('conversation_messages')
      .select(['thread_key', sql<Date>`max(at)`.as('last_at')])
      .where('workspace_id', '=', workspace)
      .where('person_id', '=', person)
      .groupBy('thread_key')
      .orderBy('last_at', 'desc')
      .limit(threadCount);
    if (options.since) latest = latest.where('at', '>=', options.since);
    const threads = await latest.execute();
    const conversations: PersonConversation[] = [];
    for (const { thread_key, last_at } of threads) {
      const rows = await this.db
        .selectFrom('conversation_messages')
        .select(['message_id', 'role', 'person_id', 'text', 'at'])
        .where('workspace_id', '=', workspace)
        .where('thread_key', '=', thread_key)
        .where('person_id', '=', person)
        .orderBy('at', 'desc')
        .orderBy('message_id', 'desc')
        .limit(perThread)
        .execute();
      conversations.push({
        thread: thread_key,
        lastAt: new Date(last_at),
        messages: rows.reverse().map(toMessage),
      });
    }
    return conversations;
  }

  /** How many threads and messages are recorded: a person's own (theirs and answers to them), and the workspace's. */
  async counts(workspace: string, person: string): Promise<ConversationTally> {
    const [mine, all] = await Promise.all([
      this.db
        .selectFrom('conversation_messages')
        .select([
          sql<number>`count(distinct thread_key)`.as('threads'),
          sql<number>`count(*)`.as('messages'),
          sql<Date | null>`max(at)`.as('last_at'),
        ])
        .where('workspace_id', '=', workspace)
        .where('person_id', '=', person)
        .executeTakeFirstOrThrow(),
      this.db
        .selectFrom('conversation_messages')
        .select([sql<number>`count(distinct thread_key)`.as('threads'), sql<number>`count(*)`.as('messages')])
        .where('workspace_id', '=', workspace)
        .executeTakeFirstOrThrow(),
    ]);
    return {
      yourThreads: Number(mine.threads),
      yourMessages: Number(mine.messages),
      ...(mine.last_at ? { yourLastAt: new Date(mine.last_at) } : {}),
      workspaceThreads: Number(all.threads),
      workspaceMessages: Number(all.messages),
    };
  }

  /**
   * Records a person's feedback on an answer; pressing again (or the other button) replaces their
   * earlier feedback on that answer.
   */
  async rate(workspace: string, feedback: AnswerFeedback): Promise<void> {
    const row = {
      workspace_id: workspace,
      thread_key: feedback.thread,
      answer_id: feedback.answer,
      person_id: feedback.person,
      value: feedback.value,
      answer_text: feedback.answerText?.slice(0, 4000) ?? null,
      at: feedback.at,
    };
    await this.db
      .insertInto('answer_feedback')
      .values(row)
      .onConflict((conflict) =>
        conflict
          .columns(['workspace_id', 'answer_id', 'person_id'])
          .doUpdateSet({ value: row.value, at: row.at, answer_text: row.answer_text }),
      )
      .execute();
  }

  /** A workspace's latest feedback, newest first (at most `limit`, 1–500). */
  async feedback(workspace: string, limit = 50): Promise<AnswerFeedback[]> {
    const rows = await this.db
      .selectFrom('answer_feedback')
      .selectAll()
      .where('workspace_id', '=', workspace)
      .orderBy('at', 'desc')
      .limit(Math.min(500, Math.max(1, limit)))
      .execute();
    return rows.map((row) => ({
      thread: row.thread_key,
      answer: row.answer_id,
      person: row.person_id,
      value: row.value,
      ...(row.answer_text !== null ? { answerText: row.answer_text } : {}),
      at: new Date(row.at),
    }));
  }

  /** Deletes messages said before `before`, and threads with nothing since; returns the messages deleted. */
  async prune(before: Date): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('answer_feedback').where('at', '<', before).execute();
      const messages = await trx
        .deleteFrom('conversation_messages')
        .where('at', '<', before)
        .executeTakeFirst();
      await trx.deleteFrom('conversation_threads').where('last_at', '<', before).execute();
      return Number(messages.numDeletedRows);
    });
  }

  /** Deletes every conversation of a workspace (also part of `workspaces.delete`). */
  async deleteWorkspace(workspace: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('answer_feedback').where('workspace_id', '=', workspace).execute();
      await trx.deleteFrom('conversation_messages').where('workspace_id', '=', workspace).execute();
      await trx.deleteFrom('conversation_threads').where('workspace_id', '=', workspace).execute();
    });
  }
}
