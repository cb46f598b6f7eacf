import { describe, expect, it } from 'vitest';
import { toolStatus } from './answer.js';
import { threadToHistory } from './thread-history.js';
import { WorkQueue } from './work-queue.js';

const bot = { userId: 'UBOT', botId: 'BBOT' };

describe('thread history', () => {
  const thread = [
    { ts: '1.0', user: 'UA', text: '<@UBOT> 東京の天気は？' },
    { ts: '2.0', user: 'UBOT', bot_id: 'BBOT', text: '晴れです' },
    { ts: '3.0', user: 'UB', text: '大阪は？' },
    { ts: '4.0', bot_id: 'BOTHER', text: 'another bot' },
    { ts: '5.0', user: 'UA', text: '<@UBOT> 明日は？' },
    { ts: '6.0', user: 'UBOT', text: '💭 考えています…' },
    { ts: '7.0', user: 'UB', text: 'later message' },
  ];

  it('maps roles, strips mentions, names speakers when several people talk, drops other bots', () => {
    expect(threadToHistory(thread, bot, '5.0', 20, ['6.0'])).toEqual([
      { role: 'user', content: '<@UA>: 東京の天気は？' },
      { role: 'assistant', content: '晴れです' },
      { role: 'user', content: '<@UB>: 大阪は？' },
    ]);
  });

  it('keeps the most recent messages within the budget, and no speaker prefix for one person', () => {
    const single = thread.filter((message) => message.user !== 'UB');
    expect(threadToHistory(single, bot, '5.0', 1, ['6.0'])).toEqual([
      { role: 'assistant', content: '晴れです' },
    ]);
    expect(threadToHistory(single, bot, '5.0', 5, ['6.0'])[0]).toEqual({
      role: 'user',
      content: '東京の天気は？',
    });
  });
});

describe('work queue', () => {
  it('runs one job at a time per thread in order, others in parallel up to the limit, and drains', async () => {
    const queue = new WorkQueue(2);
    const log: string[] = [];
    let running = 0;
    let peak = 0;
    const job = (name: string, ms: number) => async () => {
      running++;
      peak = Math.max(peak, running);
      log.push(`start ${name}`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      log.push(`end ${name}`);
      running--;
    };
    queue.push('t1', job('a1', 60));
    queue.push('t1', job('a2', 10));
    queue.push('t2', job('b1', 10));
    queue.push('t3', job('c1', 10));
    expect(await queue.drain(5000)).toBe(true);
    expect(log.indexOf('end a1')).toBeLessThan(log.indexOf('start a2'));
    expect(peak).toBe(2);
    expect(queue.push('t4', job('late', 1))).toBe(false);
  });

  it('a failing job does not stop the thread', async () => {
    const queue = new WorkQueue(1);
    const done: string[] = [];
    queue.push('t', async () => {
      throw new Error('boom');
    });
    queue.push('t', async () => {
      done.push('second');
    });
    await queue.drain(1000);
    expect(done).toEqual(['second']);
  });
});

describe('the progress line', () => {
  const start = {
    type: 'tool_start' as const,
    callId: 'c',
    name: 'mcp__jira__search',
    server: 'jira',
    tool: 'search',
    arguments: {},
  };
  it('is the server’s status_message when it has one, else a neutral line naming the tool', () => {
    expect(toolStatus({ ...start, statusMessage: '🔎 Jira を検索しています…' })).toBe(
      '🔎 Jira を検索しています…',
    );
    expect(toolStatus(start)).toBe('🔧 `search` を実行しています…');
  });
});
