import type {
  AreaForecast,
  AreaTables,
  ForecastDay,
  RawArea,
  RawForecast,
  RawTimeSeries,
} from './forecast-types.js';
import { ForecastShapeError, rawForecastSchema } from './forecast-types.js';
import { jstDate, jstHour } from './time.js';
import { weatherCode } from './weather-codes.js';

export * from './forecast-types.js';

function numberOrNull(value: string | undefined): number | null {
  if (value === undefined || value.trim() === '') return null;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : null;
}

function probabilityOrNull(value: string | undefined): number | null {
  const parsed = numberOrNull(value);
  return parsed !== null && parsed >= 0 && parsed <= 100 ? parsed : null;
}

/** JMA free text uses full-width spaces between phrases; join them. */
export function normalizeWeatherText(text: string): string {
  return text.replace(/[\u3000\s]+/g, '').trim();
}

function textOrNull(value: string | undefined): string | null {
  const text = value === undefined ? '' : normalizeWeatherText(value);
  return text === '' ? null : text;
}

function pad(hour: number): string {
  return String(hour).padStart(2, '0');
}

function findArea(series: RawTimeSeries | undefined, code: string): RawArea | undefined {
  return series?.areas.find((entry) => entry.area.code === code);
}

function instant(value: string, where: string): Date {
  const parsed = new Date(value);
  if (Number.isNaN(parsed.getTime())) throw new ForecastShapeError(`${where}: "${value}" is not a time`);
  return parsed;
}

/**
 * Picks the station whose temperatures stand for an area: the first listed station present in the
 * series; otherwise the station at the area's position when both lists line up (station codes
 * change over time, e.g. 名瀬 88836 → 88837).
 */
function pickStation(
  series: RawTimeSeries | undefined,
  preferred: readonly string[],
  areaIndex: number,
  areaCount: number,
): RawArea | undefined {
  if (!series) return undefined;
  for (const code of preferred) {
    const found = findArea(series, code);
    if (found) return found;
  }
  return series.areas.length === areaCount ? series.areas[areaIndex] : undefined;
}

function shortTermDays(
  report: RawForecast[number],
  class10: string,
  tables: AreaTables,
  weeklyStation: string | undefined,
) {
  const [weatherSeries, popSeries, tempSeries] = report.timeSeries;
  const weatherArea = findArea(weatherSeries, class10);
  if (!weatherSeries || !weatherArea) return undefined;
  const reportDate = jstDate(instant(report.reportDatetime, 'reportDatetime'));
  const popArea = findArea(popSeries, class10);
  const areaIndex = weatherSeries.areas.indexOf(weatherArea);
  const preferredStations = Object.values(tables.forecastArea)
    .flat()
    .filter((entry) => entry.class10 === class10)
    .flatMap((entry) => entry.amedas);
  // The representative station first; when its code has changed, the weekly forecast's station for
  // the same area is a better guess than the table's second station (奄美: 名瀬, not 沖永良部).
  const [representative, ...others] = preferredStations;
  const ordered = [representative, weeklyStation, ...others].filter((code): code is string => Boolean(code));
  const station = pickStation(tempSeries, ordered, areaIndex, weatherSeries.areas.length);

  const days: ForecastDay[] = weatherSeries.timeDefines.map((time, index) => {
    const date = jstDate(instant(time, 'timeDefines'));
    const code = weatherArea.weatherCodes?.[index];
    return {
      date,
      source: 'short_term',
      weather:
        textOrNull(weatherArea.weathers?.[index]) ?? (code ? weatherCode(code)?.text : undefined) ?? '不明',
      weatherCode: code ? code : null,
      tempMin: null,
      tempMax: null,
      precipitation: [],
      reliability: null,
      wind: textOrNull(weatherArea.winds?.[index]),
      wave: textOrNull(weatherArea.waves?.[index]),
    };
  });
  const byDate = new Map(days.map((day) => [day.date, day]));

  popSeries?.timeDefines.forEach((time, index) => {
    const start = instant(time, 'pops timeDefines');
    const hour = jstHour(start);
    byDate.get(jstDate(start))?.precipitation.push({
      block: `${pad(hour)}-${pad(Math.min(hour + 6, 24))}`,
      probability: probabilityOrNull(popArea?.pops?.[index]),
    });
  });

  // Temps: T00:00 is a minimum, T09:00 a maximum; today's T00:00 slot only repeats today's maximum
  // in 05:00 and 11:00 issues, so today's minimum is unknown (fixtures README, quirk 4).
  tempSeries?.timeDefines.forEach((time, index) => {
    const at = instant(time, 'temps timeDefines');
    const day = byDate.get(jstDate(at));
    const value = numberOrNull(station?.temps?.[index]);
    if (!day || value === null) return;
    if (jstHour(at) === 0) {
      if (day.date !== reportDate) day.tempMin = value;
    } else {
      day.tempMax = value;
    }
  });

  return {
    name: weatherArea.area.name,
    days,
    station: station ? { code: station.area.code, name: station.area.name } : null,
  };
}

function weeklyDays(
  report: RawForecast[number] | undefined,
  class10: string,
  office: string,
  tables: AreaTables,
) {
  const [weatherSeries, tempSeries] = report?.timeSeries ?? [];
  if (!report || !weatherSeries) return undefined;
  const mappings = Object.values(tables.weekArea)
    .flat()
    .filter((entry) => entry.srf === class10);
  // Weekly areas are a coarser set than class10s (quirk 11): map through week_area.json, never by prefix.
  const candidates = [...mappings.map((entry) => entry.week), ...(tables.weekArea05?.[class10] ?? [])];
  let area = candidates.map((code) => findArea(weatherSeries, code)).find(Boolean);
  area ??= weatherSeries.areas.length === 1 ? weatherSeries.areas[0] : findArea(weatherSeries, office);
  area ??= findArea(weatherSeries, class10);
  if (!area) return undefined;
  const weeklyArea = area;
  const areaIndex = weatherSeries.areas.indexOf(weeklyArea);
  const preferred = mappings
    .filter((entry) => entry.week === weeklyArea.area.code)
    .map((entry) => entry.amedas);
  const station = pickStation(tempSeries, preferred, areaIndex, weatherSeries.areas.length);

  const days: ForecastDay[] = weatherSeries.timeDefines.map((time, index) => {
    const code = weeklyArea.weatherCodes?.[index] ?? '';
    const entry = weatherCode(code);
    return {
      date: jstDate(instant(time, 'weekly timeDefines')),
      source: 'weekly',
      weather: entry?.text ?? (code ? `天気コード${code}` : '不明'),
      weatherCode: code || null,
      tempMin: numberOrNull(station?.tempsMin?.[index]),
      tempMax: numberOrNull(station?.tempsMax?.[index]),
      precipitation: [{ block: '00-24', probability: probabilityOrNull(weeklyArea.pops?.[index]) }],
      reliability: textOrNull(weeklyArea.reliabilities?.[index]),
      wind: null,
      wave: null,
    };
  });
  return {
    code: weeklyArea.area.code,
    name: weeklyArea.area.name,
    days,
    station: station ? { code: station.area.code, name: station.area.name } : null,
  };
}

/**
 * Extracts one class10 area's forecast from an office's forecast file. Survives the quirks listed in
 * the JMA fixtures README: issue-time-dependent slot counts, out-of-order temps, station-keyed temps,
 * blank weekly day 0, missing `waves`, weekly codes absent from area.json.
 */
export function parseAreaForecast(
  raw: unknown,
  officeCode: string,
  class10: string,
  tables: AreaTables,
): AreaForecast {
  const parsed = rawForecastSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ForecastShapeError(
      `forecast ${officeCode}: unexpected shape at ${issue?.path.join('.') || '(root)'}: ${issue?.message}`,
    );
  }
  const [shortReport, weeklyReport] = parsed.data;
  if (!shortReport) throw new ForecastShapeError(`forecast ${officeCode}: empty`);
  const weekly = weeklyDays(weeklyReport, class10, officeCode, tables);
  const short = shortTermDays(shortReport, class10, tables, weekly?.station?.code);
  if (!short) throw new ForecastShapeError(`forecast ${officeCode}: area ${class10} is not in the forecast`);
  return {
    publishingOffice: shortReport.publishingOffice,
    areaCode: class10,
    areaName: short.name,
    reportDatetime: shortReport.reportDatetime,
    weeklyReportDatetime: weekly ? (weeklyReport?.reportDatetime ?? null) : null,
    weeklyAreaCode: weekly?.code ?? null,
    weeklyAreaName: weekly?.name ?? null,
    station: short.station,
    weeklyStation: weekly?.station ?? null,
    shortTerm: short.days,
    weekly: weekly?.days ?? [],
  };
}
