import type { Logger } from '@ai-assistant/mcp-server-kit';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { type ForecastChart, renderForecastChart } from './chart/forecast-chart.js';
import { type JmaClient, JmaError } from './jma/client.js';
import {
  type AreaForecast,
  type AreaTables,
  type ForecastDay,
  ForecastShapeError,
  forecastAreaTableSchema,
  parseAreaForecast,
  weekArea05TableSchema,
  weekAreaTableSchema,
} from './jma/forecast.js';
import { addDays, japaneseDate, jstDate, jstDateTime } from './jma/time.js';
import { areaTableSchema, PlaceIndex, type ResolvedPlace } from './places/resolve.js';

/** Input of `get_weather`. */
export const getWeatherInput = {
  location: z
    .string()
    .describe('日本国内の地名（都道府県・市区町村・地方名。例: 東京, 大阪市, 静岡県森町, Sapporo）'),
  date: z
    .string()
    .optional()
    .describe(
      '"today"（既定・今日と明日）, "tomorrow", "day_after_tomorrow", "week"（週間予報7日分）, または "YYYY-MM-DD"',
    ),
};

const precipitationBlock = z.object({
  block: z.string().describe('時間帯（06-12 など。週間予報は 00-24）'),
  probability: z.number().min(0).max(100).nullable(),
});
const forecastDay = z.object({
  date: z.string(),
  label: z.string(),
  source: z.enum(['short_term', 'weekly']),
  weather: z.string(),
  weatherCode: z.string().nullable(),
  tempMin: z.number().nullable(),
  tempMax: z.number().nullable(),
  precipitation: z.array(precipitationBlock),
  reliability: z.string().nullable(),
  wind: z.string().nullable(),
  wave: z.string().nullable(),
});
const codeAndName = z.object({ code: z.string(), name: z.string() });

/** Structured output of `get_weather`. */
export const getWeatherOutput = {
  office: codeAndName,
  area: codeAndName,
  matchedPlace: z.object({ name: z.string(), level: z.string(), prefecture: z.string() }),
  weeklyArea: codeAndName.nullable(),
  reportDatetime: z.string(),
  weeklyReportDatetime: z.string().nullable(),
  requested: z.string(),
  days: z.array(forecastDay),
  attribution: z.string(),
};
type StructuredWeather = z.infer<z.ZodObject<typeof getWeatherOutput>>;

const dateAliases: Record<string, string> = {
  today: 'today',
  今日: 'today',
  きょう: 'today',
  tomorrow: 'tomorrow',
  明日: 'tomorrow',
  あした: 'tomorrow',
  day_after_tomorrow: 'day_after_tomorrow',
  明後日: 'day_after_tomorrow',
  あさって: 'day_after_tomorrow',
  week: 'week',
  週間: 'week',
};

/** Collaborators of the tool, injected by createServer. */
export interface WeatherToolContext {
  jma: JmaClient;
  now: () => Date;
  logger: Logger;
  /** Whether the week's answer carries its chart as a PNG image item. */
  chart: boolean;
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function dayLabel(date: string, today: string): string {
  const relative = { [today]: '今日', [addDays(today, 1)]: '明日', [addDays(today, 2)]: '明後日' }[date];
  return relative ? `${relative} ${japaneseDate(date)}` : japaneseDate(date);
}

function describeDay(day: ForecastDay, label: string): string {
  const parts = [day.weather];
  if (day.tempMin !== null) parts.push(`最低気温 ${day.tempMin}°C`);
  if (day.tempMax !== null) parts.push(`最高気温 ${day.tempMax}°C`);
  let line = `${label}: ${parts.join('、')}。`;
  const blocks = day.precipitation.filter((block) => block.probability !== null);
  if (blocks.length > 0) {
    line +=
      day.source === 'weekly'
        ? `降水確率 ${blocks[0]?.probability}%。`
        : `降水確率 ${blocks.map((block) => `${block.block}時 ${block.probability}%`).join(' / ')}。`;
  }
  if (day.reliability) line += `信頼度 ${day.reliability}。`;
  return line;
}

/** Builds the `get_weather` handler; the place index is built once, on first use. */
export function createGetWeather(context: WeatherToolContext) {
  // A cached response is the same object until it expires: parse each area of it once.
  const parsed = new WeakMap<object, Map<string, AreaForecast>>();
  const parsedFor = (raw: unknown, class10: string, parse: () => AreaForecast): AreaForecast => {
    if (!raw || typeof raw !== 'object') return parse();
    const areas = parsed.get(raw) ?? new Map<string, AreaForecast>();
    parsed.set(raw, areas);
    const forecast = areas.get(class10) ?? parse();
    areas.set(class10, forecast);
    return forecast;
  };
  let index: Promise<PlaceIndex> | undefined;
  const placeIndex = () => {
    index ??= context.jma.areaTable().then((raw) => {
      const parsed = areaTableSchema.safeParse(raw);
      if (!parsed.success) throw new ForecastShapeError('area.json: unexpected shape');
      return new PlaceIndex(parsed.data);
    });
    // A failed build is retried on the next call rather than cached forever.
    index.catch(() => {
      index = undefined;
    });
    return index;
  };

  // The const tables only refine station and weekly-area choice; without them the parser falls back.
  const validated = new WeakMap<object, unknown>();
  const optionalTable = <T>(name: string, schema: z.ZodType<T>, empty: T): Promise<T> =>
    context.jma
      .forecastConst(name)
      .then((raw) => {
        // Validate each fetched table once, not on every call that uses it.
        if (raw && typeof raw === 'object' && validated.has(raw)) return validated.get(raw) as T;
        const table = schema.parse(raw);
        if (raw && typeof raw === 'object') validated.set(raw, table);
        return table;
      })
      .catch((error: unknown) => {
        context.logger.warn(`${name}.json unavailable or malformed`, { error: String(error) });
        return empty;
      });
  const areaTables = async (): Promise<AreaTables> => {
    const [forecastArea, weekArea, weekArea05] = await Promise.all([
      optionalTable('forecast_area', forecastAreaTableSchema, {}),
      optionalTable('week_area', weekAreaTableSchema, {}),
      optionalTable('week_area05', weekArea05TableSchema, {}),
    ]);
    return { forecastArea, weekArea, weekArea05 };
  };

  return async function getWeather(args: {
    location: string;
    date?: string | undefined;
  }): Promise<CallToolResult> {
    const requested = (args.date ?? 'today').trim() || 'today';
    const mode =
      dateAliases[requested.toLowerCase()] ?? (/^\d{4}-\d{2}-\d{2}$/.test(requested) ? 'date' : undefined);
    if (!mode) {
      return errorResult(
        `date "${requested}" は指定できません。today, tomorrow, day_after_tomorrow, week, または YYYY-MM-DD 形式で指定してください。`,
      );
    }
    try {
      const resolution = (await placeIndex()).resolve(args.location);
      switch (resolution.kind) {
        case 'invalid':
          return errorResult(resolution.reason);
        case 'foreign':
          return errorResult(
            `「${resolution.name}」は日本国外の地点です。この天気ツールは気象庁の予報を使うため、日本国内の地点のみ対応しています。`,
          );
        case 'ambiguous':
          return errorResult(
            `「${args.location.trim()}」に当てはまる地点が複数あります: ${resolution.candidates.join('、')}。都道府県名を付けて（例: 静岡県森町）もう一度指定してください。`,
          );
        case 'not_found':
          return errorResult(
            `「${args.location.trim()}」という地名は見つかりませんでした。${
              resolution.suggestions.length > 0 ? `候補: ${resolution.suggestions.join('、')}。` : ''
            }日本国内の都道府県・市区町村名で指定してください。`,
          );
      }
      const place = resolution.place;
      const [raw, tables] = await Promise.all([context.jma.forecast(place.officeCode), areaTables()]);
      const forecast = parsedFor(raw, place.class10Code, () =>
        parseAreaForecast(raw, place.officeCode, place.class10Code, tables),
      );
      const result = present(place, forecast, mode, requested, jstDate(context.now()));
      if (mode === 'week' && context.chart && !result.isError) {
        // The picture is a convenience: a renderer that fails leaves the text and the data whole.
        try {
          const png = await renderForecastChart(weekChart(place, forecast));
          result.content.push({ type: 'image', mimeType: 'image/png', data: png.toString('base64') });
        } catch (error) {
          context.logger.warn('forecast chart not rendered', { error: String(error) });
        }
      }
      return result;
    } catch (error) {
      if (error instanceof JmaError) {
        context.logger.warn('JMA request failed', { code: error.code, message: error.message });
        return errorResult(`${error.message}しばらくしてからもう一度お試しください。`);
      }
      if (error instanceof ForecastShapeError) {
        context.logger.warn('unexpected JMA data', { message: error.message });
        return errorResult('気象庁のデータが想定と異なる形式だったため、予報を読み取れませんでした。');
      }
      context.logger.error('get_weather failed', { error: String(error) });
      return errorResult('天気予報の取得中に予期しないエラーが起きました。');
    }
  };
}

/** The week as the chart draws it, labelled in English (the chart's font is Latin only). */
function weekChart(place: ResolvedPlace, forecast: AreaForecast): ForecastChart {
  const where =
    place.matchedLevel === 'class15' || place.matchedLevel === 'class20'
      ? `${place.matchedEnglishName} (${place.class10EnglishName})`
      : place.class10EnglishName;
  const reported = new Date(forecast.weeklyReportDatetime ?? forecast.reportDatetime);
  return {
    title: `${where}: week forecast`,
    subtitle: `Japan Meteorological Agency, issued ${jstDateTime(reported)} JST`,
    days: forecast.weekly.map((day) => {
      const chances = day.precipitation.flatMap((block) => block.probability ?? []);
      return {
        date: day.date,
        tempMax: day.tempMax,
        tempMin: day.tempMin,
        rain: chances.length > 0 ? Math.max(...chances) : null,
      };
    }),
  };
}

function present(
  place: ResolvedPlace,
  forecast: AreaForecast,
  mode: string,
  requested: string,
  today: string,
): CallToolResult {
  const byDate = new Map<string, ForecastDay>();
  for (const day of forecast.weekly) byDate.set(day.date, day);
  for (const day of forecast.shortTerm) byDate.set(day.date, day);
  const available = [...byDate.keys()].sort();

  let days: ForecastDay[];
  if (mode === 'week') {
    days = forecast.weekly;
    if (days.length === 0) return errorResult('この地域の週間予報は現在ありません。');
  } else {
    const wanted =
      mode === 'today'
        ? [today, addDays(today, 1)]
        : mode === 'tomorrow'
          ? [addDays(today, 1)]
          : mode === 'day_after_tomorrow'
            ? [addDays(today, 2)]
            : [requested];
    const first = wanted[0] as string;
    if (!byDate.has(first)) {
      return errorResult(
        `${first}（${requested}）の予報はありません。気象庁の予報がある日付: ${available.join(', ')}。`,
      );
    }
    days = wanted.flatMap((date) => byDate.get(date) ?? []);
  }

  const office = place.officeName;
  const areaName = forecast.areaName === office ? office : `${office} ${forecast.areaName}`;
  const where =
    place.matchedLevel === 'class15' || place.matchedLevel === 'class20'
      ? `${place.matchedName.replace(/[（(].*$/, '')}（${areaName}）`
      : areaName;
  const weekly = mode === 'week';
  const reported = new Date((weekly ? forecast.weeklyReportDatetime : null) ?? forecast.reportDatetime);
  const lines = [
    `${where}の${weekly ? '週間' : ''}天気予報です（気象庁 ${jstDateTime(reported)} 発表）。`,
    ...days.map((day) => describeDay(day, dayLabel(day.date, today))),
    '出典：気象庁',
  ];
  const structured: StructuredWeather = {
    office: { code: place.officeCode, name: office },
    area: { code: forecast.areaCode, name: forecast.areaName },
    matchedPlace: { name: place.matchedName, level: place.matchedLevel, prefecture: place.prefecture },
    weeklyArea:
      forecast.weeklyAreaCode && forecast.weeklyAreaName
        ? { code: forecast.weeklyAreaCode, name: forecast.weeklyAreaName }
        : null,
    reportDatetime: forecast.reportDatetime,
    weeklyReportDatetime: forecast.weeklyReportDatetime,
    requested,
    days: days.map((day) => ({ ...day, label: dayLabel(day.date, today) })),
    attribution: '出典：気象庁',
  };
  return { content: [{ type: 'text', text: lines.join('\n') }], structuredContent: structured };
}
