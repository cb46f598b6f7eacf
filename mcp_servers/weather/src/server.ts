import { type Logger, silentLogger } from '@ai-assistant/mcp-server-kit';
import {
  RESOURCE_MIME_TYPE,
  registerAppResource,
  registerAppTool,
} from '@modelcontextprotocol/ext-apps/server';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { forecastViewHtml, forecastViewUri } from './app/forecast-view.js';
import { JmaClient, type JmaClientOptions } from './jma/client.js';
import { version } from './version.js';
import { createGetWeather, getWeatherInput, getWeatherOutput } from './weather-tool.js';

/** Options of {@link createServer}. */
export interface WeatherServerOptions {
  /** A shared JMA client, or options for a new one. */
  jma?: JmaClient | JmaClientOptions;
  /** Clock deciding "today" (default: the real clock; dates are taken in JST). */
  now?: () => Date;
  logger?: Logger;
  /** Whether the week's answer carries its chart as a PNG image (default true). */
  chart?: boolean;
}

/** Builds the weather MCP server without starting any transport (no side effects). */
export function createServer(options: WeatherServerOptions = {}): McpServer {
  const now = options.now ?? (() => new Date());
  const jma = options.jma instanceof JmaClient ? options.jma : new JmaClient({ now, ...options.jma });
  const server = new McpServer(
    { name: 'mcp-server-weather', version },
    {
      // logging lets hosts set a level (logging/setLevel); our logs still go to stderr.
      capabilities: { logging: {} },
      instructions:
        '日本の天気予報（気象庁）を返します。場所は日本国内の地名で指定してください。傘が必要かどうかは降水確率で判断できます。',
    },
  );
  // The days as a page for hosts that show MCP Apps; other hosts read the text and structured content.
  registerAppTool(
    server,
    'get_weather',
    {
      title: '日本の天気予報',
      description:
        '気象庁の天気予報を取得します（日本国内のみ）。今日・明日・明後日・週間・日付指定に対応し、天気、最高/最低気温、時間帯ごとの降水確率を返します。',
      inputSchema: getWeatherInput,
      outputSchema: getWeatherOutput,
      annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: true },
      _meta: { ui: { resourceUri: forecastViewUri } },
    },
    createGetWeather({ jma, now, logger: options.logger ?? silentLogger, chart: options.chart ?? true }),
  );
  const viewMeta = { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } };
  registerAppResource(
    server,
    'forecast_view',
    forecastViewUri,
    {
      title: '天気予報の表示',
      description: 'get_weather の結果（最高・最低気温と降水確率）をグラフと表で表示する MCP Apps のページ',
      _meta: viewMeta,
    },
    async () => ({
      contents: [
        {
          uri: forecastViewUri,
          mimeType: RESOURCE_MIME_TYPE,
          text: forecastViewHtml(),
          _meta: viewMeta,
        },
      ],
    }),
  );
  // Questions a host can offer people as suggestions (e.g. in Slack's assistant pane).
  for (const [name, title, text] of [
    ['weather_today', '東京の今日の天気は？', (place: string) => `${place}の今日の天気は？`],
    ['umbrella_today', '今日は傘が必要？', (place: string) => `${place}で今日は傘が必要？`],
  ] as const) {
    server.registerPrompt(
      name,
      {
        title,
        description: `${title}（場所を変えられます）`,
        argsSchema: z.object({ location: z.string().optional().describe('日本国内の地名（既定: 東京）') }),
      },
      ({ location }) => ({
        messages: [{ role: 'user', content: { type: 'text', text: text(location?.trim() || '東京') } }],
      }),
    );
  }
  return server;
}

export { type Logger, stderrLogger } from '@ai-assistant/mcp-server-kit';
export { JmaClient, type JmaClientOptions } from './jma/client.js';
