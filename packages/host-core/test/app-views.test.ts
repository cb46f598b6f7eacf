import { join } from 'node:path';
import { type FakeJma, startFakeJma } from '@ai-assistant/mcp-server-weather/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { managerPool, nodeServer, personalEcho, weatherServer } from './helpers.js';

const entry = (name: string) =>
  join(import.meta.dirname, '..', 'node_modules', '@modelcontextprotocol', name, 'dist', 'index.js');

describe('#46 the host carries MCP Apps views to its page, never to a model', () => {
  const pool = managerPool();
  let jma: FakeJma;
  beforeAll(async () => {
    jma = await startFakeJma();
  });
  afterAll(() => jma.close());
  afterEach(() => pool.closeAll());

  it('#46 a result with a view carries its resourceUri and the result as sent; the page reads the view and calls app-only tools', async () => {
    const manager = await pool.connect([
      weatherServer(jma.baseUrl),
      nodeServer('pdf', entry('server-pdf'), ['--stdio']),
      ...personalEcho(),
    ]);
    const outcome = await manager.callTool('mcp__weather__get_weather', { location: '東京', date: 'week' });
    // Before: the outcome had text (and the chart image) only.
    expect(outcome.app?.resourceUri).toBe('ui://weather/forecast.html');
    expect(outcome.app?.result?.structuredContent).toMatchObject({ days: expect.any(Array) });
    expect(outcome.text).not.toContain('<html');
    const view = await manager.readAppResource('weather', 'ui://weather/forecast.html');
    expect(view.contents[0]?.mimeType).toBe('text/html;profile=mcp-app');
    expect(view.contents[0]?.text).toContain('<html');
    expect(view.contents[0]?._meta).toMatchObject({ ui: { csp: { connectDomains: [] } } });
    // server-pdf's app-only tool: never the model's, callable by its view.
    expect(manager.resolveTool('mcp__pdf__poll_pdf_commands')).toBeUndefined();
    expect(manager.appTool('pdf', 'poll_pdf_commands')).toMatchObject({ server: 'pdf' });
    expect(manager.appTool('weather', 'no_such_tool')).toBeUndefined();
    const listed = await manager.callAppTool('pdf', 'list_pdfs', {});
    expect(listed.isError).toBe(false);
    expect(listed.app?.result?.content.length).toBeGreaterThan(0);
    // A person's view: a per-person server they have not connected is refused with why.
    const view2 = await manager.forPerson({ workspace: 'T1', user: 'U2', credentials: {} });
    await expect(view2.callAppTool('mine', 'echo', {})).rejects.toMatchObject({
      code: 'MISSING_CREDENTIALS',
    });
    expect((await view2.callAppTool('weather', 'get_weather', { location: '東京' })).app?.resourceUri).toBe(
      'ui://weather/forecast.html',
    );
    // A workspace that disabled weather reaches neither its tool nor its view.
    const off = await manager.forPerson({
      workspace: 'T2',
      user: 'U3',
      credentials: {},
      settings: new Map([['weather', false]]),
    });
    expect(off.appTool('weather', 'get_weather')).toBeUndefined();
    await expect(off.readAppResource('weather', 'ui://weather/forecast.html')).rejects.toMatchObject({
      code: 'TOOL_NOT_FOUND',
    });
  }, 60_000);
});
