import { z } from 'zod';

// The shapes of JMA's forecast files and area tables, and of the forecast the parser makes of them.

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
export type RawArea = z.infer<typeof rawArea>;
export type RawTimeSeries = z.infer<typeof rawTimeSeries>;

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
