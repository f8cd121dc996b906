import {
  addDays,
  easterSunday,
  isWeekend,
  nthWeekdayOfMonth,
  parseYmd,
  sydneyClock,
  toYmd,
} from './dates.js';
import { consecutivePair, nextWeekday } from './holidays.js';

/**
 * The exchange trading calendar: one calendar, on the Sydney clock, for all five markets.
 *
 * It follows the ASX trading-holiday pattern: New Year's Day, Australia Day, Good Friday,
 * Easter Monday, Anzac Day, King's (Queen's) Birthday (2nd Monday of June), Christmas Day and
 * Boxing Day. New Year's Day, Australia Day, Christmas and Boxing Day move to the next
 * weekday(s) when they fall on a weekend; Anzac Day has no substitute on a weekend. Two
 * cases beyond the plain rule, both as the ASX observed them: Anzac Day on Easter Monday
 * (2011) closes the Tuesday too, and the one-off National Day of Mourning of 22 Sep 2022.
 */

export const SESSION_OPEN = '100000';
/** Daily settlement prices are published at the close; settle messages carry this time. */
export const SETTLEMENT_TIME = '160000';
/** Late activity runs until 17:00, so a day counts as completed only from then. */
export const SESSION_CLOSE = '170000';

const ONE_OFF_CLOSURES: Readonly<Record<string, string>> = {
  '20220922': 'National Day of Mourning',
};

const cache = new Map<number, ReadonlyMap<string, string>>();

/**
 * Weekday dates on which the exchange is closed in `year`, with the holiday's name. Weekend
 * dates are never listed: a holiday on a weekend appears only as its substitute day (if any).
 */
export function exchangeHolidays(year: number): Map<string, string> {
  // A copy: the cached map is shared by every isTradingDay call.
  return new Map(holidaysOf(year));
}

function computeExchangeHolidays(year: number): Map<string, string> {
  const holidays = new Map<string, string>();
  const add = (date: string, name: string) => {
    if (!isWeekend(date) && !holidays.has(date)) holidays.set(date, name);
  };
  add(nextWeekday(toYmd(year, 1, 1)), "New Year's Day");
  add(nextWeekday(toYmd(year, 1, 26)), 'Australia Day');
  const easter = easterSunday(year);
  add(addDays(easter, -2), 'Good Friday');
  add(addDays(easter, 1), 'Easter Monday');
  const anzac = toYmd(year, 4, 25);
  if (holidays.has(anzac)) add(addDays(anzac, 1), 'Anzac Day');
  else add(anzac, 'Anzac Day');
  add(nthWeekdayOfMonth(year, 6, 1, 2), "King's Birthday");
  for (const [date, name] of consecutivePair(toYmd(year, 12, 25), 'Christmas Day', 'Boxing Day')) {
    add(date, name);
  }
  for (const [date, name] of Object.entries(ONE_OFF_CLOSURES)) {
    if (date.startsWith(String(year))) add(date, name);
  }
  return new Map([...holidays].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function holidaysOf(year: number): ReadonlyMap<string, string> {
  let holidays = cache.get(year);
  if (!holidays) {
    holidays = computeExchangeHolidays(year);
    cache.set(year, holidays);
  }
  return holidays;
}

/** A weekday that is not an exchange holiday. */
export function isTradingDay(date: string): boolean {
  return !isWeekend(date) && !holidaysOf(parseYmd(date).year).has(date);
}

/** The first trading day strictly after `date`. */
export function nextTradingDay(date: string): string {
  let day = addDays(date, 1);
  while (!isTradingDay(day)) day = addDays(day, 1);
  return day;
}

/** The last trading day strictly before `date`. */
export function previousTradingDay(date: string): string {
  let day = addDays(date, -1);
  while (!isTradingDay(day)) day = addDays(day, -1);
  return day;
}

/** Trading days from `from` to `to`, both inclusive, ascending; empty when from > to. */
export function tradingDaysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let day = from; day <= to; day = addDays(day, 1)) {
    if (isTradingDay(day)) days.push(day);
  }
  return days;
}

/**
 * The `count` trading days ending at `until` (inclusive), ascending. When `until` is not a
 * trading day the run ends at the trading day before it.
 */
export function lastTradingDays(count: number, until: string): string[] {
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`bad trading day count: ${count}`);
  const days: string[] = [];
  let day = isTradingDay(until) ? until : previousTradingDay(until);
  while (days.length < count) {
    days.push(day);
    day = previousTradingDay(day);
  }
  return days.reverse();
}

/**
 * The latest trading day whose session is over on the Sydney clock: today from 17:00 (the end
 * of late activity), otherwise the trading day before.
 */
export function lastCompletedTradingDay(now: Date): string {
  const { date, time } = sydneyClock(now);
  return isTradingDay(date) && time >= SESSION_CLOSE ? date : previousTradingDay(date);
}
