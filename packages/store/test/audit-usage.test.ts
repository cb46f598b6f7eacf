import { expect, it } from 'vitest';
import { onBothEngines } from './engines.js';

const at = (iso: string) => new Date(iso);

onBothEngines('audit trail and usage', ({ fresh, open }) => {
  it('records tool calls with approvals and outcomes; newest first, filtered; pruned by age; gone with the workspace', async () => {
    const store = await open(fresh());
    await store.workspaces.ensure('T1');
    await store.audit.record({
      at: at('2026-11-01T10:00:00Z'),
      workspace: 'T1',
      person: 'U1',
      kind: 'tool_call',
      server: 'tickets',
      tool: 'create_ticket',
      arguments: '{"title":"printer"}',
      approval: { by: 'U1', at: at('2026-11-01T10:00:05Z') },
      outcome: 'ok',
      durationMs: 812.4,
    });
    await store.audit.record({
      at: at('2026-11-20T10:00:00Z'),
      workspace: 'T1',
      person: 'U2',
      kind: 'tool_call',
      server: 'weather',
      tool: 'get_weather',
      arguments: 'x'.repeat(5000),
      outcome: 'error',
      durationMs: 12,
    });
    await store.audit.record({
      at: at('2026-11-21T10:00:00Z'),
      workspace: 'T2',
      person: 'U9',
      kind: 'admin',
      detail: 'disabled weather',
    });
    const recent = await store.audit.recent('T1');
    expect(recent.map((row) => [row.person, row.tool, row.outcome])).toEqual([
      ['U2', 'get_weather', 'error'],
      ['U1', 'create_ticket', 'ok'],
    ]);
    expect(recent[1]).toMatchObject({
      approval: { by: 'U1' },
      durationMs: 812,
      arguments: '{"title":"printer"}',
    });
    expect(recent[0]?.approval).toBeUndefined();
    expect(recent[0]?.arguments?.length).toBe(2000);
    expect((await store.audit.recent('T1', { server: 'tickets' })).map((row) => row.tool)).toEqual([
      'create_ticket',
    ]);
    expect((await store.audit.recent('T1', { person: 'U2' })).map((row) => row.tool)).toEqual([
      'get_weather',
    ]);

    const exported = [];
    for await (const row of store.audit.since(at('2026-11-10T00:00:00Z'), 1)) exported.push(row.workspace);
    expect(exported).toEqual(['T1', 'T2']);

    expect(await store.audit.prune(at('2026-11-10T00:00:00Z'))).toBe(1);
    await store.workspaces.delete('T1');
    expect(await store.audit.recent('T1')).toEqual([]);
    expect((await store.audit.recent('T2')).length).toBe(1);
  });

  it('adds usage per person and day; totals per person or workspace over a range', async () => {
    const store = await open(fresh());
    await store.usage.add('T1', 'U1', '2026-11-23', {
      questions: 1,
      inputTokens: 1200,
      outputTokens: 300,
      toolCalls: 2,
    });
    await store.usage.add('T1', 'U1', '2026-11-23', { questions: 1, inputTokens: 800, outputTokens: 100 });
    await store.usage.add('T1', 'U2', '2026-11-23', { questions: 1, inputTokens: 50 });
    await store.usage.add('T1', 'U1', '2026-11-22', { questions: 5, inputTokens: 9999 });
    expect(await store.usage.totals('T1', '2026-11-23', '2026-11-23', 'U1')).toEqual({
      questions: 2,
      inputTokens: 2000,
      outputTokens: 400,
      toolCalls: 2,
    });
    expect((await store.usage.totals('T1', '2026-11-23', '2026-11-23')).inputTokens).toBe(2050);
    expect((await store.usage.totals('T1', '2026-11-01', '2026-11-30', 'U1')).questions).toBe(7);
    await store.workspaces.delete('T1');
    expect((await store.usage.totals('T1', '2026-11-01', '2026-11-30')).questions).toBe(0);
  });
});
