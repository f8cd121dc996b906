/**
 * Calendar arithmetic on `yyyyMMdd` dates and `HHmmss` times. Everything runs on UTC day
 * numbers so that the host's time zone can never shift a date; only the two Sydney functions
 * look at a real time zone, and they do it through Intl so DST rules come from the ICU data.
 */

export interface Ymd {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

const DATE = /^\d{8}$/;
const MS_PER_DAY = 86_400_000;

/** Exactly 8 digits naming a real calendar date in 2000..2099 (the exchange's code years). */
export function isValidDate(text: string): boolean {
  if (!DATE.test(text)) return false;
  const year = Number(text.slice(0, 4));
  const month = Number(text.slice(4, 6));
  const day = Number(text.slice(6, 8));
  return (
    year >= 2000 && year <= 2099 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month)
  );
}

/** Exactly 6 digits HHmmss on a 24-hour clock (no leap second). */
export function isValidTime(text: string): boolean {
  // by character codes: every feed event has a time, and this is most of what checking it costs
  if (text.length !== 6) return false;
  const digit = (index: number) => {
    const code = text.charCodeAt(index) - 48;
    return code >= 0 && code <= 9 ? code : 99;
  };
  return digit(0) * 10 + digit(1) <= 23 && digit(2) * 10 + digit(3) <= 59 && digit(4) * 10 + digit(5) <= 59;
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Splits a date. Throws a RangeError on anything that is not a real date: callers validate
 * input at the boundary, so a bad date here is a programming error.
 */
export function parseYmd(date: string): Ymd {
  if (!DATE.test(date)) throw new RangeError(`not a yyyyMMdd date: ${date}`);
  const year = Number(date.slice(0, 4));
  const month = Number(date.slice(4, 6));
  const day = Number(date.slice(6, 8));
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    throw new RangeError(`not a calendar date: ${date}`);
  }
  return { year, month, day };
}

export function toYmd(year: number, month: number, day: number): string {
  if (!Number.isInteger(year) || year < 0 || year > 9999) throw new RangeError(`year out of range: ${year}`);
  return `${String(year).padStart(4, '0')}${String(month).padStart(2, '0')}${String(day).padStart(2, '0')}`;
}

/** Days since 1970-01-01 (UTC), the unit all date arithmetic here is done in. */
export function epochDay(date: string): number {
  const { year, month, day } = parseYmd(date);
  return Date.UTC(year, month - 1, day) / MS_PER_DAY;
}

export function fromEpochDay(days: number): string {
  const value = new Date(days * MS_PER_DAY);
  return toYmd(value.getUTCFullYear(), value.getUTCMonth() + 1, value.getUTCDate());
}

export function addDays(date: string, days: number): string {
  if (!Number.isInteger(days)) throw new RangeError(`not a whole number of days: ${days}`);
  return fromEpochDay(epochDay(date) + days);
}

/** `to - from` in days. */
export function daysBetween(from: string, to: string): number {
  return epochDay(to) - epochDay(from);
}

/** 0 = Sunday .. 6 = Saturday. */
export function dayOfWeek(date: string): number {
  // 1970-01-01 was a Thursday (4).
  return (((epochDay(date) + 4) % 7) + 7) % 7;
}

export function isWeekend(date: string): boolean {
  const weekday = dayOfWeek(date);
  return weekday === 0 || weekday === 6;
}

/** The `nth` (1-based) given weekday of a month, e.g. the 2nd Monday of June. */
export function nthWeekdayOfMonth(year: number, month: number, weekday: number, nth: number): string {
  const first = toYmd(year, month, 1);
  const offset = (weekday - dayOfWeek(first) + 7) % 7;
  return addDays(first, offset + (nth - 1) * 7);
}

export const SYDNEY_TIME_ZONE = 'Australia/Sydney';

const sydneyFormat = new Intl.DateTimeFormat('en-GB', {
  timeZone: SYDNEY_TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  // h23: some ICU versions print midnight as 24 with hour12: false.
  hourCycle: 'h23',
});

function sydneyParts(
  epochMs: number,
): Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', string> {
  const parts = { year: '', month: '', day: '', hour: '', minute: '', second: '' };
  for (const part of sydneyFormat.formatToParts(epochMs)) {
    if (part.type in parts) parts[part.type as keyof typeof parts] = part.value;
  }
  return parts;
}

/** The exchange clock (Sydney wall time) at an instant. */
export function sydneyClock(now: Date): { date: string; time: string } {
  const parts = sydneyParts(now.getTime());
  return {
    date: `${parts.year.padStart(4, '0')}${parts.month}${parts.day}`,
    time: `${parts.hour}${parts.minute}${parts.second}`,
  };
}

/** Sydney's UTC offset in milliseconds at an instant (+10 h AEST, +11 h AEDT). */
function sydneyOffsetMs(epochMs: number): number {
  const parts = sydneyParts(epochMs);
  const wall = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  return wall - Math.floor(epochMs / 1000) * 1000;
}

/**
 * The Unix time (seconds) of a Sydney wall-clock moment. DST transitions are resolved like
 * Temporal's "compatible" disambiguation: a repeated wall time (the April fall-back hour) takes
 * the earlier instant, a skipped one (the October spring-forward hour) is read with the offset
 * before the gap, i.e. moved forward by the gap. Settlement times (16:00) never hit either case.
 */
export function sydneyUnixSeconds(date: string, time: string): number {
  if (!isValidTime(time)) throw new RangeError(`not an HHmmss time: ${time}`);
  const { year, month, day } = parseYmd(date);
  const wallMs = Date.UTC(
    year,
    month - 1,
    day,
    Number(time.slice(0, 2)),
    Number(time.slice(2, 4)),
    Number(time.slice(4, 6)),
  );
  const offsetBefore = sydneyOffsetMs(wallMs - MS_PER_DAY);
  const offsetAfter = sydneyOffsetMs(wallMs + MS_PER_DAY);
  const candidates = [wallMs - offsetBefore, wallMs - offsetAfter].filter(
    (instant) => instant + sydneyOffsetMs(instant) === wallMs,
  );
  const instant = candidates.length > 0 ? Math.min(...candidates) : wallMs - offsetBefore;
  return instant / 1000;
}

/** Easter Sunday of a Gregorian year (the anonymous Gregorian, or Meeus/Jones/Butcher, algorithm). */
export function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return toYmd(year, month, day);
}
