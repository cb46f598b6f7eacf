import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type AreaTables,
  ForecastShapeError,
  forecastAreaTableSchema,
  parseAreaForecast,
  type RawForecast,
  weekArea05TableSchema,
  weekAreaTableSchema,
} from '../src/jma/forecast.js';
import { addDays, jstDate } from '../src/jma/time.js';
import { weatherCode, weatherCodes } from '../src/jma/weather-codes.js';
import { jmaFixturesDir, readFixture } from './jma-fixtures.js';

describe('JMA forecast parser on every recorded forecast', () => {
  const tables: AreaTables = {
    forecastArea: forecastAreaTableSchema.parse(readFixture('const-forecast_area.json')),
    weekArea: weekAreaTableSchema.parse(readFixture('const-week_area.json')),
    weekArea05: weekArea05TableSchema.parse(readFixture('const-week_area05.json')),
  };
  const files = readdirSync(jmaFixturesDir).filter((name) => name.startsWith('forecast-'));
  const cases = files.flatMap((file) => {
    const raw = readFixture(file) as RawForecast;
    const office = /forecast-(\d{6})/.exec(file)?.[1] as string;
    return (raw[0]?.timeSeries[0]?.areas ?? []).map((area) => [file, office, area.area.code, raw] as const);
  });

  it('covers all 18 forecast files', () => {
    expect(files).toHaveLength(18);
  });

  it.each(cases)('%s area %s/%s: well-formed days', (_file, office, class10, raw) => {
    const forecast = parseAreaForecast(raw, office, class10, tables);
    const reportDate = jstDate(new Date(forecast.reportDatetime));
    expect(forecast.shortTerm.length).toBe(raw[0]?.timeSeries[0]?.timeDefines.length);
    forecast.shortTerm.forEach((day, index) => {
      expect(day.date).toBe(addDays(reportDate, index));
      expect(day.weather).not.toMatch(/^(|不明)$/);
      expect(day.weather).not.toContain('\u3000');
    });
    for (const day of [...forecast.shortTerm, ...forecast.weekly]) {
      for (const value of [day.tempMin, day.tempMax]) {
        expect(value === null || (Number.isFinite(value) && value > -50 && value < 50)).toBe(true);
      }
      if (day.tempMin !== null && day.tempMax !== null) expect(day.tempMin).toBeLessThanOrEqual(day.tempMax);
      for (const block of day.precipitation) {
        expect(block.probability === null || (block.probability >= 0 && block.probability <= 100)).toBe(true);
      }
    }
    // Today's minimum is never published in a short-term forecast (quirk 4).
    expect(forecast.shortTerm[0]?.tempMin).toBeNull();
    expect(forecast.station).not.toBeNull();
    expect(forecast.weekly).toHaveLength(7);
    const weeklyStart = forecast.weekly[0]?.date as string;
    expect([reportDate, addDays(reportDate, 1)]).toContain(weeklyStart);
    forecast.weekly.forEach((day, index) => {
      expect(day.date).toBe(addDays(weeklyStart, index));
      expect(weatherCode(day.weatherCode ?? '')).toBeDefined();
    });
    // Weekly day 0 is blank apart from its weather code (quirk 10).
    expect(forecast.weekly[0]?.precipitation[0]?.probability).toBeNull();
  });

  it('Tokyo 2026-03-12 05:00: values checked by hand against the file', () => {
    const forecast = parseAreaForecast(
      readFixture('forecast-130000-20260312.json'),
      '130000',
      '130010',
      tables,
    );
    expect(forecast.reportDatetime).toBe('2026-03-12T05:00:00+09:00');
    expect(forecast.weeklyReportDatetime).toBe('2026-03-11T17:00:00+09:00');
    expect(forecast.station).toEqual({ code: '44132', name: '東京' });
    const [today, tomorrow] = forecast.shortTerm;
    expect(today).toMatchObject({ date: '2026-03-12', weather: '晴れ時々くもり', weatherCode: '101' });
    // temps ["13","13","3","11"]: the 00:00 slot of today repeats the maximum; it is not a minimum.
    expect([today?.tempMin, today?.tempMax]).toEqual([null, 13]);
    expect(today?.precipitation).toEqual([
      { block: '06-12', probability: 0 },
      { block: '12-18', probability: 0 },
      { block: '18-24', probability: 0 },
    ]);
    expect(tomorrow).toMatchObject({ date: '2026-03-13', weather: 'くもり', tempMin: 3, tempMax: 11 });
    expect(tomorrow?.precipitation.map((block) => block.probability)).toEqual([0, 0, 10, 10]);
    // At 05:00 the weekly part is the previous evening's, so it starts today.
    expect(forecast.weekly[0]?.date).toBe('2026-03-12');
    expect(forecast.weekly[1]).toMatchObject({ date: '2026-03-13', tempMin: 4, weather: '曇' });
    expect(forecast.weekly[2]?.reliability).toBe('A');
  });

  it('Osaka 2026-08-12 17:00: single class10 equal to the office code', () => {
    const forecast = parseAreaForecast(readFixture('forecast-270000.json'), '270000', '270000', tables);
    const [today, tomorrow] = forecast.shortTerm;
    expect(today?.precipitation).toEqual([{ block: '18-24', probability: 70 }]);
    expect([today?.tempMin, today?.tempMax]).toEqual([null, null]);
    expect(tomorrow).toMatchObject({ tempMin: 23, tempMax: 29 });
    expect(forecast.weekly[1]).toMatchObject({ date: '2026-08-14', tempMin: 25, reliability: null });
    expect(forecast.weekly[1]?.precipitation[0]?.probability).toBe(30);
  });

  it('奄美 inside the Kagoshima file uses 名瀬 even after its station code changed', () => {
    const forecast = parseAreaForecast(
      readFixture('forecast-460100-20260812.json'),
      '460100',
      '460040',
      tables,
    );
    expect(forecast.station?.name).toBe('名瀬');
    expect(forecast.weeklyAreaCode).toBe('460040');
  });

  it('伊豆諸島南部 maps to the synthetic weekly area 130100 absent from area.json', () => {
    const forecast = parseAreaForecast(
      readFixture('forecast-130000-20260812.json'),
      '130000',
      '130030',
      tables,
    );
    expect(forecast.weeklyAreaCode).toBe('130100');
    expect(forecast.weeklyStation?.name).toBe('八丈島');
  });

  it('inland 岐阜 has no waves and still parses', () => {
    const forecast = parseAreaForecast(readFixture('forecast-210000.json'), '210000', '210010', tables);
    expect(forecast.shortTerm.every((day) => day.wave === null)).toBe(true);
    expect(forecast.shortTerm[0]?.wind).not.toBeNull();
  });

  it('rejects a response of the wrong shape with a ForecastShapeError naming the office', () => {
    expect(() => parseAreaForecast({ unexpected: true }, '130000', '130010', tables)).toThrow(
      ForecastShapeError,
    );
    expect(() => parseAreaForecast([], '130000', '130010', tables)).toThrow(/130000/);
    expect(() => parseAreaForecast(readFixture('forecast-270000.json'), '270000', '130010', tables)).toThrow(
      /130010/,
    );
  });

  it('weather-code table equals JMA TELOPS (all 118 codes)', () => {
    const telops = readFixture('telops.json') as Record<string, [string, string, string, string, string]>;
    const categories: Record<string, string> = {
      '100': 'clear',
      '200': 'cloudy',
      '300': 'rain',
      '400': 'snow',
    };
    expect([...weatherCodes].sort()).toEqual(Object.keys(telops).sort());
    for (const [code, [, , category, japanese, english]] of Object.entries(telops)) {
      expect(weatherCode(code)).toEqual({ text: japanese, category: categories[category], english });
    }
  });
});
