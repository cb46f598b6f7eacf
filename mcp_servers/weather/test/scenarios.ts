import type { CallToolResult, Client, ClientOptions } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { FakeJma } from '../src/testing/fake-jma.js';
import { getWeatherOutput } from '../src/weather-tool.js';

/** Just after the 2026-03-12 05:00 JST Tokyo issue: the clock every scenario runs at. */
export const recordedNow = '2026-03-12T05:30:00+09:00';

/**
 * Client options for one protocol era: 2025-11-25 opens with `initialize` (the client's default);
 * 2026-07-28 asks `server/discover` first and sends every request with its own `_meta` envelope.
 */
export function eraOptions(era: '2025-11-25' | '2026-07-28'): ClientOptions {
  return era === '2026-07-28' ? { versionNegotiation: { mode: 'auto' } } : {};
}

/** A connected client plus the fake JMA behind the server it talks to. */
export interface Connection {
  client: Client;
  jma: FakeJma;
  close(): Promise<void>;
}

const output = z.object(getWeatherOutput);

function text(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}

/** The behaviour every transport must show: same tool, same answers, same errors. */
export function weatherServerScenarios(title: string, connect: () => Promise<Connection>): void {
  describe(title, () => {
    let connection: Connection;
    const call = async (args: Record<string, unknown>) =>
      (await connection.client.callTool({ name: 'get_weather', arguments: args })) as CallToolResult;

    beforeAll(async () => {
      connection = await connect();
    }, 30_000);
    afterAll(async () => {
      await connection?.close();
    });

    it('lists get_weather with its input and output schemas', async () => {
      const { tools } = await connection.client.listTools();
      const tool = tools.find((candidate) => candidate.name === 'get_weather');
      expect(tool?.inputSchema.properties).toHaveProperty('location');
      expect(tool?.inputSchema.properties).toHaveProperty('date');
      expect(tool?.inputSchema.required).toEqual(['location']);
      expect(tool?.outputSchema?.properties).toHaveProperty('days');
    });

    it('offers suggestion prompts: 東京の今日の天気は？ and 今日は傘が必要？, with the place changeable', async () => {
      const { prompts } = await connection.client.listPrompts();
      expect(prompts.map((prompt) => [prompt.name, prompt.title])).toEqual([
        ['weather_today', '東京の今日の天気は？'],
        ['umbrella_today', '今日は傘が必要？'],
      ]);
      const tokyo = await connection.client.getPrompt({ name: 'weather_today', arguments: {} });
      expect(tokyo.messages[0]?.content).toEqual({ type: 'text', text: '東京の今日の天気は？' });
      const osaka = await connection.client.getPrompt({
        name: 'umbrella_today',
        arguments: { location: '大阪' },
      });
      expect(osaka.messages[0]?.content).toEqual({ type: 'text', text: '大阪で今日は傘が必要？' });
    });

    it('today: text with today and tomorrow, the report time and the precipitation blocks', async () => {
      const result = await call({ location: '東京' });
      expect(result.isError).toBeFalsy();
      const body = text(result);
      expect(body).toContain('東京都 東京地方の天気予報です（気象庁 2026-03-12 05:00 発表）');
      expect(body).toContain(
        '今日 3月12日(木): 晴れ時々くもり、最高気温 13°C。降水確率 06-12時 0% / 12-18時 0% / 18-24時 0%。',
      );
      expect(body).toContain('明日 3月13日(金): くもり、最低気温 3°C、最高気温 11°C。');
      expect(body).toContain('出典：気象庁');
      const structured = output.parse(result.structuredContent);
      expect(structured.office).toEqual({ code: '130000', name: '東京都' });
      expect(structured.area).toEqual({ code: '130010', name: '東京地方' });
      expect(structured.days.map((day) => day.date)).toEqual(['2026-03-12', '2026-03-13']);
      expect(structured.days[0]).toMatchObject({ tempMin: null, tempMax: 13, weatherCode: '101' });
    });

    it('tomorrow, a city inside an area, and English input', async () => {
      const result = await call({ location: 'Hachioji', date: 'tomorrow' });
      expect(result.isError).toBeFalsy();
      const structured = output.parse(result.structuredContent);
      expect(structured.office.code).toBe('130000');
      expect(structured.matchedPlace.name).toBe('八王子市');
      expect(structured.days).toHaveLength(1);
      expect(structured.days[0]?.date).toBe('2026-03-13');
      expect(text(result)).toMatch(/^八王子市（東京都 東京地方）の天気予報です/);
    });

    it('week: seven days from the weekly forecast with reliabilities', async () => {
      const result = await call({ location: '東京都', date: 'week' });
      const structured = output.parse(result.structuredContent);
      expect(structured.days).toHaveLength(7);
      expect(structured.days.every((day) => day.source === 'weekly')).toBe(true);
      expect(structured.days[2]?.reliability).toBe('A');
      expect(text(result)).toContain('週間天気予報です（気象庁 2026-03-11 17:00 発表）');
    });

    it('a date inside the forecast, and one outside it naming the available dates', async () => {
      const inside = await call({ location: '東京', date: '2026-03-15' });
      expect(output.parse(inside.structuredContent).days[0]).toMatchObject({
        date: '2026-03-15',
        source: 'weekly',
      });
      const outside = await call({ location: '東京', date: '2026-04-01' });
      expect(outside.isError).toBe(true);
      expect(text(outside)).toContain('2026-03-12, 2026-03-13');
      expect(text(outside)).toContain('2026-03-18');
    });

    it('unknown, ambiguous, foreign, empty and over-long places are readable errors', async () => {
      const foreign = await call({ location: 'ロンドン' });
      expect([foreign.isError, text(foreign)]).toEqual([true, expect.stringContaining('日本国内の地点のみ')]);
      const ambiguous = await call({ location: '森町' });
      expect(ambiguous.isError).toBe(true);
      expect(text(ambiguous)).toMatch(/静岡県.*北海道|北海道.*静岡県/);
      const empty = await call({ location: '' });
      expect([empty.isError, text(empty)]).toEqual([true, expect.stringContaining('地名が空です')]);
      const long = await call({ location: 'x'.repeat(200) });
      expect([long.isError, text(long)]).toEqual([true, expect.stringContaining('長すぎます')]);
      const badDate = await call({ location: '東京', date: 'next week' });
      expect([badDate.isError, text(badDate)]).toEqual([true, expect.stringContaining('YYYY-MM-DD')]);
    });

    it('JMA answering 500, HTML or nothing gives a clear error, and the server keeps serving', async () => {
      connection.jma.setBehaviour(/forecast\/270000/, '500');
      connection.jma.setBehaviour(/forecast\/070000/, 'html');
      connection.jma.setBehaviour(/forecast\/230000/, 'hang');
      try {
        const failing = await call({ location: '大阪' });
        expect([failing.isError, text(failing)]).toEqual([true, expect.stringContaining('HTTP 500')]);
        // One retry on a 5xx, then give up.
        expect(connection.jma.hits.get('/bosai/forecast/data/forecast/270000.json')).toBe(2);
        const html = await call({ location: '福島' });
        expect([html.isError, text(html)]).toEqual([true, expect.stringContaining('JSON ではありません')]);
        const hanging = await call({ location: '名古屋' });
        expect([hanging.isError, text(hanging)]).toEqual([
          true,
          expect.stringContaining('時間内に応答しませんでした'),
        ]);
      } finally {
        connection.jma.reset();
      }
      const healthy = await call({ location: '東京' });
      expect(healthy.isError).toBeFalsy();
    }, 20_000);
  });
}
