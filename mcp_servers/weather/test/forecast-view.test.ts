import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallToolResult, Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type FakeJma, startFakeJma } from '../src/testing/fake-jma.js';
import { jmaFixturesDir } from '../src/testing/fixtures.js';
import { getWeatherOutput } from '../src/weather-tool.js';
import { serverEntry, serverEnvironment } from './spawn.js';

const viewUri = 'ui://weather/forecast.html';
const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const output = z.object(getWeatherOutput);

/** The PNG of a result's one image item, with the size its IHDR chunk gives. */
function chartOf(result: CallToolResult): { png: Buffer; width: number; height: number } {
  const images = result.content.filter((block) => block.type === 'image');
  expect(images).toHaveLength(1);
  const image = images[0] as { mimeType: string; data: string };
  expect(image.mimeType).toBe('image/png');
  const png = Buffer.from(image.data, 'base64');
  expect(png.subarray(0, 8).equals(pngSignature)).toBe(true);
  expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { png, width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

type RawForecast = Array<{ timeSeries: Array<{ areas: Array<Record<string, string[]>> }> }>;

/** The recorded files plus variants of the Tokyo 2026-03-12 issue with one weekly value changed. */
function fixturesWithVariants(): string {
  const folder = mkdtempSync(join(tmpdir(), 'weather-chart-'));
  cpSync(jmaFixturesDir, folder, { recursive: true });
  const variant = (name: string, change: (weekly: RawForecast[number]) => void) => {
    const raw = JSON.parse(
      readFileSync(join(folder, 'forecast-130000-20260312.json'), 'utf8'),
    ) as RawForecast;
    change(raw[1] as RawForecast[number]);
    writeFileSync(join(folder, name), JSON.stringify(raw));
  };
  variant('forecast-130000-rainier.json', (weekly) => {
    (weekly.timeSeries[0]?.areas[0]?.pops as string[])[3] = '90';
  });
  variant('forecast-130000-warmer.json', (weekly) => {
    (weekly.timeSeries[1]?.areas[0]?.tempsMax as string[])[4] = '21';
  });
  return folder;
}

describe('#46 a forecast people can see', () => {
  let fixtures: string;
  let jma: FakeJma;
  let client: Client;
  const call = async (args: Record<string, unknown>) =>
    (await client.callTool({ name: 'get_weather', arguments: args })) as CallToolResult;

  const connect = async (environment: Record<string, string> = {}) => {
    const connected = new Client({ name: 'forecast-view-test', version: '0' });
    await connected.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [serverEntry],
        env: { ...serverEnvironment(jma.baseUrl), ...environment },
        stderr: 'pipe',
      }),
    );
    return connected;
  };

  beforeAll(async () => {
    fixtures = fixturesWithVariants();
    jma = await startFakeJma({ fixturesDir: fixtures });
    // JMA_CACHE=off: a fixture swapped mid-test is read on the next call.
    client = await connect({ JMA_CACHE: 'off' });
  });
  afterAll(async () => {
    await client?.close();
    await jma?.close();
    if (fixtures) rmSync(fixtures, { recursive: true, force: true });
  });

  it('#46 the week forecast carries a small, deterministic PNG chart that follows the data', async () => {
    const week = await call({ location: '東京', date: 'week' });
    expect(week.isError).toBeFalsy();
    // Hosts without images or Apps still get the text first and the structured forecast.
    expect(week.content[0]).toMatchObject({ type: 'text' });
    expect(week.content[0]?.type === 'text' && week.content[0].text).toContain('週間天気予報です');
    expect(output.parse(week.structuredContent).days).toHaveLength(7);
    const chart = chartOf(week);
    expect(chart.width).toBeGreaterThanOrEqual(480);
    expect(chart.width).toBeLessThanOrEqual(1600);
    expect(chart.height).toBeGreaterThanOrEqual(240);
    expect(chart.height).toBeLessThanOrEqual(1000);
    expect(chart.png.length).toBeLessThan(60 * 1024);

    const again = chartOf(await call({ location: '東京', date: 'week' }));
    expect(again.png.equals(chart.png)).toBe(true);

    // A day or two stays text: the chart is the week's.
    const today = await call({ location: '東京' });
    expect(today.isError).toBeFalsy();
    expect(today.content.map((block) => block.type)).toEqual(['text']);

    // Same place and issue, one value changed: the picture follows the data.
    jma.setForecast('130000', 'forecast-130000-rainier.json');
    const rainier = await call({ location: '東京', date: 'week' });
    expect(output.parse(rainier.structuredContent).days[3]?.precipitation[0]?.probability).toBe(90);
    const rainierChart = chartOf(rainier).png;
    expect(rainierChart.equals(chart.png)).toBe(false);
    jma.setForecast('130000', 'forecast-130000-warmer.json');
    const warmer = await call({ location: '東京', date: 'week' });
    expect(output.parse(warmer.structuredContent).days[4]?.tempMax).toBe(21);
    const warmerChart = chartOf(warmer).png;
    expect(warmerChart.equals(chart.png)).toBe(false);
    expect(warmerChart.equals(rainierChart)).toBe(false);
  });

  it('#46 get_weather declares its App view, a self-contained page under a CSP with no external domain', async () => {
    const { tools } = await client.listTools();
    const tool = tools.find((candidate) => candidate.name === 'get_weather');
    expect(tool?._meta).toMatchObject({ ui: { resourceUri: viewUri } });

    const { resources } = await client.listResources();
    expect(resources.find((resource) => resource.uri === viewUri)?.mimeType).toBe(
      'text/html;profile=mcp-app',
    );
    const { contents } = await client.readResource({ uri: viewUri });
    expect(contents).toHaveLength(1);
    const page = contents[0] as { uri: string; mimeType: string; text: string; _meta?: unknown };
    expect(page.uri).toBe(viewUri);
    expect(page.mimeType).toBe('text/html;profile=mcp-app');
    expect(page._meta).toEqual({
      ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true },
    });

    const html = page.text;
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'none'");
    expect(csp).not.toMatch(/https?:|\*/);
    // The App bridge is the package's own browser bundle, inlined verbatim (its few URL strings are
    // JSON Schema identifiers, never fetched). The page around it loads nothing and names no URL.
    const bridge = readFileSync(
      createRequire(import.meta.url).resolve('@modelcontextprotocol/ext-apps/app-with-deps'),
      'utf8',
    );
    const exportAt = bridge.lastIndexOf('export{');
    expect(exportAt).toBeGreaterThan(0);
    const bridgeBody = bridge.slice(0, exportAt);
    expect(html).toContain(bridgeBody);
    const ours = html.replace(bridgeBody, '');
    expect(ours).not.toMatch(/https?:\/\//);
    expect(ours).not.toMatch(/\s(src|href|action)\s*=|url\(|@import|<(link|img|iframe)\b|import\(|fetch\(/i);
    expect(html).toContain('ontoolresult');
  });

  it('#46 MCP_WEATHER_CHART=off answers the week in text and data only', async () => {
    jma.setForecast('130000', 'forecast-130000-20260312.json');
    const textOnly = await connect({ MCP_WEATHER_CHART: 'off' });
    try {
      const week = (await textOnly.callTool({
        name: 'get_weather',
        arguments: { location: '東京', date: 'week' },
      })) as CallToolResult;
      expect(week.content.map((block) => block.type)).toEqual(['text']);
      expect(output.parse(week.structuredContent).days).toHaveLength(7);
    } finally {
      await textOnly.close();
    }
  });
});
