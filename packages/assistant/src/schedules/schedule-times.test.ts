import { describe, expect, it } from 'vitest';
import { localTime, nextOccurrence, readScheduleTimes, ScheduleWordsError } from './schedule-times.js';

const iso = (at: Date | undefined) => at?.toISOString();

describe('schedule times', () => {
  it('reads Japanese and English words and cron fields', () => {
    const read = (words: string) => readScheduleTimes(words, 'Asia/Tokyo').cron;
    expect(read('毎朝8時')).toBe('0 8 * * *');
    expect(read('毎日 午後3時15分')).toBe('15 15 * * *');
    expect(read('平日 9:30')).toBe('30 9 * * 1-5');
    expect(read('毎週月曜 10時半')).toBe('30 10 * * 1');
    expect(read('毎週月曜と木曜 夜7時')).toBe('0 19 * * 1,4');
    expect(read('毎月1日 9時')).toBe('0 9 1 * *');
    expect(read('every weekday at 8am')).toBe('0 8 * * 1-5');
    expect(read('every monday at 8:30 pm')).toBe('30 20 * * 1');
    expect(read('毎時 5分')).toBe('5 * * * *');
    expect(read('0 8 * * 1-5')).toBe('0 8 * * 1-5');
    // Full-width digits, as people type them in Japanese.
    expect(read('毎朝８時')).toBe('0 8 * * *');
    expect(readScheduleTimes('毎朝8時', 'Asia/Tokyo').description).toBe('毎朝8時');
  });

  it('refuses what names no time, a zone that does not exist, or a schedule more often than every 15 minutes', () => {
    expect(() => readScheduleTimes('そのうち', 'Asia/Tokyo')).toThrow(ScheduleWordsError);
    expect(() => readScheduleTimes('そのうち', 'Asia/Tokyo')).toThrow(/毎朝8時/);
    expect(() => readScheduleTimes('毎朝25時', 'Asia/Tokyo')).toThrow(/no time of day that exists/);
    expect(() => readScheduleTimes('毎朝8時', 'Mars/Olympus')).toThrow(/not a time zone/);
    expect(() => readScheduleTimes('*/5 * * * *', 'Asia/Tokyo')).toThrow(/more often than every 15 minutes/);
    expect(() => readScheduleTimes('99 8 * * *', 'Asia/Tokyo')).toThrow(/cannot be read/);
  });

  it('runs at the local time in Tokyo: 08:00 JST is 23:00 UTC the day before; weekdays skip the weekend', () => {
    // Friday 2026-11-27 09:00 JST.
    const friday = new Date('2026-11-27T00:00:00Z');
    expect(iso(nextOccurrence('0 8 * * *', 'Asia/Tokyo', friday))).toBe('2026-11-27T23:00:00.000Z');
    expect(iso(nextOccurrence('0 8 * * 1-5', 'Asia/Tokyo', friday))).toBe('2026-11-29T23:00:00.000Z');
    expect(localTime(new Date('2026-11-29T23:00:00Z'), 'Asia/Tokyo')).toBe('11/30(月) 08:00');
  });

  it('follows daylight saving in New York: the same 08:00 local moves by an hour in UTC', () => {
    const eightNewYork = (from: string) =>
      iso(nextOccurrence('0 8 * * *', 'America/New_York', new Date(from)));
    // Before the spring change (EST, UTC-5) and after it (EDT, UTC-4): 2027-03-14.
    expect(eightNewYork('2027-03-13T00:00:00Z')).toBe('2027-03-13T13:00:00.000Z');
    expect(eightNewYork('2027-03-14T00:00:00Z')).toBe('2027-03-14T12:00:00.000Z');
    // Back in autumn: 2027-11-07.
    expect(eightNewYork('2027-11-06T00:00:00Z')).toBe('2027-11-06T12:00:00.000Z');
    expect(eightNewYork('2027-11-07T00:00:00Z')).toBe('2027-11-07T13:00:00.000Z');
    // 02:30 does not exist on the spring day: it runs once, an hour later; 01:30 happens twice in autumn: once.
    const runs = (cron: string, from: string, to: string) => {
      const out: string[] = [];
      let at = new Date(from);
      for (;;) {
        const next = nextOccurrence(cron, 'America/New_York', at);
        if (!next || next > new Date(to)) return out;
        out.push(next.toISOString());
        at = next;
      }
    };
    expect(runs('30 2 * * *', '2027-03-14T00:00:00Z', '2027-03-15T00:00:00Z')).toEqual([
      '2027-03-14T07:30:00.000Z',
    ]);
    expect(runs('30 1 * * *', '2027-11-07T00:00:00Z', '2027-11-08T00:00:00Z')).toEqual([
      '2027-11-07T05:30:00.000Z',
    ]);
  });
});
