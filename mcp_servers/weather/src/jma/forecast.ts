import { z } from 'zod';
import { jstDate, jstHour } from './time.js';
import { weatherCode } from './weather-codes.js';

// JMA values are always strings, "" when missing (fixtures README, quirk 9).
const values = z.array(z.string()).optional();
const rawArea = z
  .object({
    area: z.object({ name: z.string(), code: z.string() }),
    weatherCodes: values,
    weathers: values,
    winds: values,
    waves: values,
    pops: values,
    reliabilities: values,
    temps: values,
    tempsMin: values,
    tempsMax: values,
  })
  .loose();
const rawTimeSeries = z.object({ timeDefines: z.array(z.string()), areas: z.array(rawArea) }).loose();
const rawReport = z
  .object({ publishingOffice: z.string(), reportDatetime: z.string(), timeSeries: z.array(rawTimeSeries) })
  .loose();

/** The shape of `/bosai/forecast/data/forecast/{office}.json`: [short-term, weekly]. */
export const rawForecastSchema = z.array(rawReport).min(1);
export type RawForecast = z.infer<typeof rawForecastSchema>;
type RawArea = z.infer<typeof rawArea>;
type RawTimeSeries = z.infer<typeof rawTimeSeries>;

/** `/bosai/forecast/const/forecast_area.json`: office → class10 areas with their AMeDAS stations. */
export const forecastAreaTableSchema = z.record(
  z.string(),
  z.array(z.object({ class10: z.string(), amedas: z.array(z.string()) }).loose()),
);
/** `/bosai/forecast/const/week_area.json`: office → short-term area (srf) → weekly area and station. */
export const weekAreaTableSchema = z.record(
  z.string(),
  z.array(z.object({ srf: z.string(), week: z.string(), amedas: z.string() }).loose()),
);
/** `/bosai/forecast/const/week_area05.json`: class10 → weekly area codes (newer groupings included). */
export const weekArea05TableSchema = z.record(z.string(), z.array(z.string()));
export type ForecastAreaTable = z.infer<typeof forecastAreaTableSchema>;
export type WeekAreaTable = z.infer<typeof weekAreaTableSchema>;

/** Probability of precipitation for one time block of a day. */
export interface PrecipitationBlock {
  /** `06-12`, `12-18`, …; `00-24` for a weekly day's single value. */
  block: string;
  probability: number | null;
}

/** One forecast day for one area. */
export interface ForecastDay {
  date: string;
  source: 'short_term' | 'weekly';
  weather: string;
  weatherCode: string | null;
  tempMin: number | null;
  tempMax: number | null;
  precipitation: PrecipitationBlock[];
  /** Weekly forecast reliability A/B/C, when JMA gives one. */
  reliability: string | null;
  wind: string | null;
  wave: string | null;
}

/** A station whose temperatures stand for an area. */
export interface Station {
  code: string;
  name: string;
}

/** Everything one forecast file says about one class10 area. */
export interface AreaForecast {
  publishingOffice: string;
  areaCode: string;
  areaName: string;
  reportDatetime: string;
  weeklyReportDatetime: string | null;
  weeklyAreaCode: string | null;
  weeklyAreaName: string | null;
  station: Station | null;
  weeklyStation: Station | null;
  shortTerm: ForecastDay[];
  weekly: ForecastDay[];
}

/** Thrown when a forecast file does not have the shape the parser relies on. */
export class ForecastShapeError extends Error {
  override name = 'ForecastShapeError';
}

/** The const tables that map areas to stations and weekly areas. */
export interface AreaTables {
  forecastArea: ForecastAreaTable;
  weekArea: WeekAreaTable;
  /** Optional: knows later weekly groupings (伊豆諸島 130100, 中通り・浜通り 070100). */
  weekArea05?: Record<string, string[]>;
}

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
