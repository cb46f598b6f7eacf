import { HostError } from '@ai-assistant/chat-types';
import { Cron } from 'croner';

/** A schedule's times as the person gave them, read into a cron expression. */
export interface ScheduleTimes {
  /** Five fields: minute hour day-of-month month day-of-week. */
  cron: string;
  /** The words it was given in (or the expression itself). */
  description: string;
}

/** Schedules run at most this often: a question every few minutes is a mistake, not a schedule. */
export const minimumIntervalMinutes = 15;

/** The words or expression of a schedule could not be read; the message says what to write instead. */
export class ScheduleWordsError extends HostError {
  override name = 'ScheduleWordsError';
  constructor(message: string) {
    super('SCHEDULE_INVALID', message);
  }
}

const examples =
  'Write it as words ("毎朝8時", "平日 9:30", "毎週月曜 10時", "毎月1日 9時", "every weekday at 8:00") or as five cron fields ("0 8 * * 1-5": minute hour day month weekday).';

const weekdays: Array<[RegExp, number]> = [
  [/^(日|sun)/i, 0],
  [/^(月|mon)/i, 1],
  [/^(火|tue)/i, 2],
  [/^(水|wed)/i, 3],
  [/^(木|thu)/i, 4],
  [/^(金|fri)/i, 5],
  [/^(土|sat)/i, 6],
];

/** Whether `zone` is an IANA time zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The hour and minute in words: "8時", "8時半", "午後3時15分", "8:30", "8am", "8:30 pm". */
function timeOf(text: string): { hour: number; minute: number } | undefined {
  const clock = /(\d{1,2}):(\d{2})\s*(am|pm)?/i.exec(text);
  const japanese = /(午前|午後|朝|夜|夕方)?\s*(\d{1,2})\s*時\s*(?:(\d{1,2})\s*分|(半))?/.exec(text);
  const english = /\b(\d{1,2})\s*(am|pm)\b/i.exec(text);
  let hour: number;
  let minute = 0;
  let half: string | undefined;
  if (clock) {
    hour = Number(clock[1]);
    minute = Number(clock[2]);
    half = clock[3]?.toLowerCase();
  } else if (japanese) {
    hour = Number(japanese[2]);
    minute = japanese[4] ? 30 : Number(japanese[3] ?? 0);
    half = japanese[1] === '午後' || japanese[1] === '夜' || japanese[1] === '夕方' ? 'pm' : undefined;
  } else if (english) {
    hour = Number(english[1]);
    half = english[2]?.toLowerCase();
  } else return undefined;
  if (half === 'pm' && hour < 12) hour += 12;
  if (half === 'am' && hour === 12) hour = 0;
  if (hour > 23 || minute > 59)
    throw new ScheduleWordsError(`"${text}" names no time of day that exists. ${examples}`);
  return { hour, minute };
}

/** The day-of-month and day-of-week fields the words name (every day when they name none). */
function daysOf(text: string): { dayOfMonth: string; dayOfWeek: string } {
  const monthly = /毎月\s*(\d{1,2})\s*日|(?:monthly|every month)\s+on\s+(?:the\s+)?(\d{1,2})/i.exec(text);
  if (monthly) {
    const day = Number(monthly[1] ?? monthly[2]);
    if (day < 1 || day > 31) throw new ScheduleWordsError(`"${text}" names no day of the month. ${examples}`);
    return { dayOfMonth: String(day), dayOfWeek: '*' };
  }
  if (/平日|weekdays?\b|every weekday/i.test(text)) return { dayOfMonth: '*', dayOfWeek: '1-5' };
  if (/週末|土日|weekends?\b/i.test(text)) return { dayOfMonth: '*', dayOfWeek: '0,6' };
  const named = new Set<number>();
  for (const match of text.matchAll(/([日月火水木金土])曜|\b(sun|mon|tue|wed|thu|fri|sat)[a-z]*\b/gi)) {
    const word = match[1] ?? match[2] ?? '';
    const found = weekdays.find(([pattern]) => pattern.test(word));
    if (found) named.add(found[1]);
  }
  if (named.size > 0) return { dayOfMonth: '*', dayOfWeek: [...named].sort().join(',') };
  return { dayOfMonth: '*', dayOfWeek: '*' };
}

/**
 * Reads when a schedule runs: five cron fields, or words in Japanese or English. Throws
 * {@link ScheduleWordsError} saying what to write instead, also for a schedule that would run more
 * often than every {@link minimumIntervalMinutes} minutes.
 */
export function readScheduleTimes(words: string, timeZone: string): ScheduleTimes {
  const text = words.trim().normalize('NFKC');
  if (!text) throw new ScheduleWordsError(`No time was given. ${examples}`);
  if (!isTimeZone(timeZone))
    throw new ScheduleWordsError(`"${timeZone}" is not a time zone (use an IANA name such as Asia/Tokyo).`);
  let cron: string;
  if (
    /^[\d*,/\-LW#?A-Za-z]+(\s+[\d*,/\-LW#?A-Za-z]+){4}$/.test(text) &&
    /[\d*]/.test(text.split(/\s+/)[0] ?? '')
  ) {
    cron = text;
  } else if (/毎時|every hour|hourly/i.test(text)) {
    const minute = /(\d{1,2})\s*分|:(\d{2})/.exec(text);
    cron = `${Number(minute?.[1] ?? minute?.[2] ?? 0)} * * * *`;
  } else {
    const time = timeOf(text);
    if (!time) throw new ScheduleWordsError(`"${words}" names no time of day. ${examples}`);
    const days = daysOf(text);
    cron = `${time.minute} ${time.hour} ${days.dayOfMonth} * ${days.dayOfWeek}`;
  }
  const pattern = cronOf(cron, timeZone, words);
  const runs = pattern.nextRuns(12, new Date());
  if (runs.length === 0) throw new ScheduleWordsError(`"${words}" never runs. ${examples}`);
  for (let index = 1; index < runs.length; index++) {
    const gap = (runs[index] as Date).getTime() - (runs[index - 1] as Date).getTime();
    if (gap < minimumIntervalMinutes * 60_000)
      throw new ScheduleWordsError(
        `"${words}" would run more often than every ${minimumIntervalMinutes} minutes; schedules run at most that often.`,
      );
  }
  return { cron, description: words.trim() };
}

function cronOf(cron: string, timeZone: string, words = cron): Cron {
  try {
    return new Cron(cron, { timezone: timeZone, paused: true, mode: '5-part' });
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CronPattern: /, '') : String(error);
    throw new ScheduleWordsError(`"${words}" cannot be read (${reason}). ${examples}`);
  }
}

/** The schedule's first occurrence strictly after `after`, in its time zone (undefined: none left). */
export function nextOccurrence(cron: string, timeZone: string, after: Date): Date | undefined {
  return cronOf(cron, timeZone).nextRun(after) ?? undefined;
}

/** A time as the person reads it in their time zone: "11/28 (土) 08:00". */
export function localTime(at: Date, timeZone: string, locale = 'ja-JP'): string {
  return new Intl.DateTimeFormat(locale, {
    timeZone,
    month: 'numeric',
    day: 'numeric',
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hour12: false,
  }).format(at);
}
