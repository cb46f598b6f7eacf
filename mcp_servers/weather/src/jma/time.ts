const jstOffsetMs = 9 * 60 * 60 * 1000;
const dayMs = 24 * 60 * 60 * 1000;

/** The JST calendar date (YYYY-MM-DD) of an instant. */
export function jstDate(instant: Date): string {
  return new Date(instant.getTime() + jstOffsetMs).toISOString().slice(0, 10);
}

/** The JST hour (0–23) of an instant. */
export function jstHour(instant: Date): number {
  return new Date(instant.getTime() + jstOffsetMs).getUTCHours();
}

/** `YYYY-MM-DD HH:mm` in JST, as JMA prints report times. */
export function jstDateTime(instant: Date): string {
  return new Date(instant.getTime() + jstOffsetMs).toISOString().slice(0, 16).replace('T', ' ');
}

/** Adds whole days to a YYYY-MM-DD date. */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * dayMs).toISOString().slice(0, 10);
}

const weekdays = ['日', '月', '火', '水', '木', '金', '土'];

/** `3月14日(土)` for a YYYY-MM-DD date. */
export function japaneseDate(date: string): string {
  const day = new Date(`${date}T00:00:00Z`);
  return `${day.getUTCMonth() + 1}月${day.getUTCDate()}日(${weekdays[day.getUTCDay()]})`;
}

// JMA issues short-term forecasts at 05:00, 11:00 and 17:00 JST.
const issueHours = [5, 11, 17];

/** The next scheduled JMA issue time strictly after `now`. */
export function nextIssueTime(now: Date): Date {
  const today = Date.parse(`${jstDate(now)}T00:00:00Z`) - jstOffsetMs;
  for (const dayOffset of [0, 1]) {
    for (const hour of issueHours) {
      const candidate = today + dayOffset * dayMs + hour * 60 * 60 * 1000;
      if (candidate > now.getTime()) return new Date(candidate);
    }
  }
  return new Date(today + dayMs + 29 * 60 * 60 * 1000);
}
