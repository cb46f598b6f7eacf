import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { storeDatabase } from '../src/testing.js';
import { onBothEngines } from './engines.js';

const at = (iso: string) => new Date(iso);

onBothEngines('conversations', ({ fresh, open }) => {
  it('feedback on an answer: one per person and answer (a second press replaces it), newest first, gone with the workspace and with retention', async () => {
    const store = await open(fresh());
    const log = store.conversations;
    const rating = {
      thread: 'D1:100',
      answer: '101',
      person: 'U1',
      value: 'positive' as const,
      answerText: 'x'.repeat(5000),
      at: at('2026-11-01T10:00:00Z'),
    };
    await log.rate('T1', rating);
    await log.rate('T1', { ...rating, value: 'negative', at: at('2026-11-01T10:01:00Z') });
    await log.rate('T1', { ...rating, person: 'U2', at: at('2026-11-01T10:02:00Z') });
    await log.rate('T2', { ...rating, answer: '900', at: at('2026-11-01T10:03:00Z') });
    const feedback = await log.feedback('T1');
    expect(feedback.map((entry) => [entry.person, entry.value])).toEqual([
      ['U2', 'positive'],
      ['U1', 'negative'],
    ]);
    expect(feedback[0]?.answerText).toHaveLength(4000);
    await store.workspaces.delete('T1');
    expect(await log.feedback('T1')).toEqual([]);
    expect(await log.feedback('T2')).toHaveLength(1);
    await log.prune(at('2026-12-01T00:00:00Z'));
    expect(await log.feedback('T2')).toEqual([]);
    await store.close();
  });

  it("#42 an answer keeps the tools it used, for the thread's next question", async () => {
    const store = await open(fresh());
    const log = store.conversations;
    await log.join('T1', 'C1:200', { historyRead: true, at: at('2026-11-01T10:00:00Z') });
    await log.record('T1', 'C1:200', {
      id: '200',
      role: 'user',
      person: 'U1',
      text: 'PR見せて',
      at: at('2026-11-01T10:00:00Z'),
    });
    const tools = ['mcp__github__list_pull_requests', 'host__find_tools'];
    await log.record('T1', 'C1:200', {
      id: 'a:200',
      role: 'assistant',
      text: '3件です',
      at: at('2026-11-01T10:00:01Z'),
      tools,
    });
    const [question, answer] = await log.thread('T1', 'C1:200', 10);
    expect(question?.tools).toBeUndefined();
    expect(answer).toMatchObject({ text: '3件です', tools });
    // An edit of the answer's text keeps its tools.
    await log.edit('T1', 'C1:200', 'a:200', '3件あります');
    expect((await log.thread('T1', 'C1:200', 10))[1]).toMatchObject({ text: '3件あります', tools });
    await store.close();
  });

  it('keeps who is in which thread, the thread so far in order, edits and deletions', async () => {
    const store = await open(fresh());
    const log = store.conversations;
    expect(await log.isMember('T1', 'C1:100')).toBe(false);
    expect(await log.join('T1', 'C1:100', { historyRead: false, at: at('2026-11-01T10:00:00Z') })).toEqual({
      joined: true,
      historyRead: false,
    });
    // Joining again keeps what the thread already was.
    expect(await log.join('T1', 'C1:100', { historyRead: true, at: at('2026-11-01T10:00:01Z') })).toEqual({
      joined: false,
      historyRead: false,
    });
    await log.markHistoryRead('T1', 'C1:100');
    expect((await log.join('T1', 'C1:100', { historyRead: false, at: new Date() })).historyRead).toBe(true);
    expect(await log.isMember('T1', 'C1:100')).toBe(true);
    expect(await log.isMember('T2', 'C1:100')).toBe(false);

    await log.record('T1', 'C1:100', {
      id: '102',
      role: 'user',
      person: 'U2',
      text: 'second',
      at: at('2026-11-01T10:00:02Z'),
    });
    await log.record('T1', 'C1:100', {
      id: '101',
      role: 'user',
      person: 'U1',
      text: 'the code is 4711',
      at: at('2026-11-01T10:00:01Z'),
    });
    await log.record('T1', 'C1:100', {
      id: 'answer:102',
      role: 'assistant',
      person: 'U2',
      text: 'an answer',
      at: at('2026-11-01T10:00:02Z'),
    });
    // Recorded again (an event delivered twice): one row.
    await log.record('T1', 'C1:100', {
      id: '101',
      role: 'user',
      person: 'U1',
      text: 'the code is 4711',
      at: at('2026-11-01T10:00:01Z'),
    });
    expect((await log.thread('T1', 'C1:100', 10)).map((message) => message.id)).toEqual([
      '101',
      '102',
      'answer:102',
    ]);
    expect((await log.thread('T1', 'C1:100', 2)).map((message) => message.id)).toEqual(['102', 'answer:102']);

    expect(await log.edit('T1', 'C1:100', '101', 'the code is 4712')).toBe(true);
    expect(await log.edit('T1', 'C1:100', 'nope', 'x')).toBe(false);
    expect(await log.remove('T1', 'C1:100', '102')).toBe(true);
    expect(await log.remove('T1', 'C1:100', '102')).toBe(false);
    const thread = await log.thread('T1', 'C1:100', 10);
    expect(thread.map((message) => [message.id, message.text])).toEqual([
      ['101', 'the code is 4712'],
      ['answer:102', 'an answer'],
    ]);
    expect(thread[0]).toMatchObject({ role: 'user', person: 'U1' });
    expect(thread[0]?.at.toISOString()).toBe('2026-11-01T10:00:01.000Z');
  });

  it('a person’s own conversations hold only their messages and their answers, never anyone else’s', async () => {
    const store = await open(fresh());
    const log = store.conversations;
    const say = (thread: string, id: string, person: string, text: string, iso: string, role = 'user') =>
      log.record('T1', thread, { id, role: role as 'user' | 'assistant', person, text, at: at(iso) });
    await log.join('T1', 'shared', { historyRead: true, at: at('2026-11-01T09:00:00Z') });
    await say('shared', '1', 'U_ALICE', 'alice asks', '2026-11-01T09:00:00Z');
    await say('shared', 'a1', 'U_ALICE', 'answer for alice', '2026-11-01T09:00:01Z', 'assistant');
    await say('shared', '2', 'U_BOB', 'bob’s secret plan', '2026-11-01T09:00:02Z');
    await say('shared', 'a2', 'U_BOB', 'answer for bob', '2026-11-01T09:00:03Z', 'assistant');
    await say('alone', '3', 'U_ALICE', 'alice later', '2026-11-02T09:00:00Z');
    await say('alone', '4', 'U_ALICE', 'in another workspace', '2026-11-03T09:00:00Z');
    await log.record('T2', 'elsewhere', {
      id: '9',
      role: 'user',
      person: 'U_ALICE',
      text: 'T2 text',
      at: at('2026-11-04T00:00:00Z'),
    });

    const alice = await log.ofPerson('T1', 'U_ALICE');
    expect(alice.map((conversation) => conversation.thread)).toEqual(['alone', 'shared']);
    expect(alice[1]?.messages.map((message) => message.text)).toEqual(['alice asks', 'answer for alice']);
    expect(JSON.stringify(alice)).not.toMatch(/bob|T2 text/);
    expect((await log.ofPerson('T1', 'U_ALICE', { threads: 1 })).map((entry) => entry.thread)).toEqual([
      'alone',
    ]);
    expect(await log.ofPerson('T1', 'U_NOBODY')).toEqual([]);
  });

  it('retention prunes old messages and idle threads; deleting a workspace deletes its conversations', async () => {
    const store = await open(fresh());
    const log = store.conversations;
    await log.join('T1', 'old', { historyRead: true, at: at('2026-01-01T00:00:00Z') });
    await log.record('T1', 'old', { id: '1', role: 'user', text: 'old', at: at('2026-01-01T00:00:00Z') });
    await log.join('T1', 'mixed', { historyRead: true, at: at('2026-01-01T00:00:00Z') });
    await log.record('T1', 'mixed', { id: '1', role: 'user', text: 'old', at: at('2026-01-01T00:00:00Z') });
    await log.record('T1', 'mixed', { id: '2', role: 'user', text: 'new', at: at('2026-03-01T00:00:00Z') });
    await log.join('T2', 'other', { historyRead: true, at: at('2026-03-01T00:00:00Z') });
    await log.record('T2', 'other', { id: '1', role: 'user', text: 'keep', at: at('2026-03-01T00:00:00Z') });

    expect(await log.prune(at('2026-02-01T00:00:00Z'))).toBe(2);
    expect(await log.isMember('T1', 'old')).toBe(false);
    expect(await log.isMember('T1', 'mixed')).toBe(true);
    expect((await log.thread('T1', 'mixed', 10)).map((message) => message.text)).toEqual(['new']);

    await store.workspaces.delete('T1');
    expect(await log.isMember('T1', 'mixed')).toBe(false);
    expect(await log.thread('T1', 'mixed', 10)).toEqual([]);
    expect(await log.isMember('T2', 'other')).toBe(true);
    await log.deleteWorkspace('T2');
    expect(await log.thread('T2', 'other', 10)).toEqual([]);
  });

  it('a database migrated before 0005 (with 0007 applied) takes 0005 on the next start', async () => {
    const options = fresh();
    const first = await open(options);
    const db = storeDatabase(first);
    await sql`drop table conversation_messages`.execute(db);
    await sql`drop table conversation_threads`.execute(db);
    await sql`delete from store_migrations where name = '0005_conversations'`.execute(db);
    await first.close();
    const again = await open(options);
    await again.conversations.join('T1', 'x', { historyRead: true, at: new Date() });
    expect(await again.conversations.isMember('T1', 'x')).toBe(true);
  });
});
