import type { Region } from './catalogue.js';
import { addDays, dayOfWeek, easterSunday, isWeekend, nthWeekdayOfMonth, parseYmd, toYmd } from './dates.js';

/**
 * Regional public holidays, used only to count PEAK delivery hours (weekdays that are not
 * public holidays of the contract's region). A set holds every holiday date of the year,
 * including the substitute weekdays, and may also hold the weekend date itself: callers count
 * weekdays, so only the weekday entries matter.
 *
 * Approximations (a documented product decision; peak hours must be known when a contract is
 * listed, so only holidays fixed in advance by rule are counted):
 * - VIC: the AFL Grand Final Friday is omitted (set each year by the AFL fixture).
 * - QLD: the Royal Queensland Show (Ekka) day is omitted (Brisbane area only).
 * - SA: the part-day holidays of Christmas Eve and New Year's Eve (from 19:00) are omitted;
 *   Adelaide Cup is the 2nd Monday of March for every year.
 * - NZ: only the one anniversary day of each node's province (Auckland for Otahuhu,
 *   Canterbury for Benmore).
 * - One-off holidays: only the National Day of Mourning of September 2022.
 */

export const MATARIKI: Readonly<Record<number, string>> = {
  2022: '20220624',
  2023: '20230714',
  2024: '20240628',
  2025: '20250620',
  2026: '20260710',
  2027: '20270625',
  2028: '20280714',
  2029: '20290706',
  2030: '20300621',
  2031: '20310711',
  2032: '20320702',
  2033: '20330624',
  2034: '20340707',
  2035: '20350629',
  2036: '20360718',
  2037: '20370710',
  2038: '20380625',
  2039: '20390715',
  2040: '20400706',
  2041: '20410719',
  2042: '20420711',
  2043: '20430703',
  2044: '20440624',
  2045: '20450707',
  2046: '20460629',
  2047: '20470719',
  2048: '20480703',
  2049: '20490625',
  2050: '20500715',
  2051: '20510630',
  2052: '20520621',
};

/** The date itself, or the Monday after it when it falls on a weekend. */
export function nextWeekday(date: string): string {
  const weekday = dayOfWeek(date);
  return weekday === 6 ? addDays(date, 2) : weekday === 0 ? addDays(date, 1) : date;
}

/**
 * Two holidays on consecutive days (Christmas and Boxing Day; 1 and 2 January in New Zealand)
 * with the common substitution: a weekday holiday keeps its date, one on a weekend is observed
 * on the first following weekday not already taken by the other. Returns the observed weekdays.
 */
export function consecutivePair(
  first: string,
  firstName: string,
  secondName: string,
): Array<[string, string]> {
  const second = addDays(first, 1);
  const observed: Array<[string, string]> = [];
  const taken = new Set<string>();
  for (const [date, name] of [
    [first, firstName],
    [second, secondName],
  ] as const) {
    if (!isWeekend(date)) {
      observed.push([date, name]);
      taken.add(date);
    }
  }
  for (const [date, name] of [
    [first, firstName],
    [second, secondName],
  ] as const) {
    if (!isWeekend(date)) continue;
    let substitute = nextWeekday(date);
    while (taken.has(substitute)) substitute = nextWeekday(addDays(substitute, 1));
    observed.push([substitute, name]);
    taken.add(substitute);
  }
  return observed.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

type State = 'nsw' | 'qld' | 'vic' | 'sa';

const cache = new Map<string, ReadonlySet<string>>();

/** Public holidays of a region in a year (see the module comment for what is approximated). */
export function regionalHolidays(region: Region, year: number): Set<string> {
  // A copy: the cached set is shared by every hours computation.
  return new Set(cached(region, year));
}

export function isRegionalHoliday(region: Region, date: string): boolean {
  return cached(region, parseYmd(date).year).has(date);
}

function cached(region: Region, year: number): ReadonlySet<string> {
  const key = `${region}:${year}`;
  let holidays = cache.get(key);
  if (!holidays) {
    holidays = compute(region, year);
    cache.set(key, holidays);
  }
  return holidays;
}

function compute(region: Region, year: number): Set<string> {
  switch (region) {
    case 'nsw':
    case 'qld':
    case 'vic':
    case 'sa':
      return australian(region, year);
    case 'wallumbilla':
    case 'au':
      return australian(undefined, year);
    case 'otahuhu':
    case 'benmore':
      return newZealand(region, year);
    case 'nz':
      return newZealand(undefined, year);
  }
}

/** The date and, when it falls on a weekend, the Monday after it. */
function withMonday(date: string): string[] {
  const observed = nextWeekday(date);
  return observed === date ? [date] : [date, observed];
}

/**
 * Holidays kept in every state (national) plus the state's own. `state` undefined gives the
 * national set: the holidays all four states share.
 */
function australian(state: State | undefined, year: number): Set<string> {
  const dates = new Set<string>();
  const add = (...list: string[]) => {
    for (const date of list) dates.add(date);
  };
  const easter = easterSunday(year);
  add(...withMonday(toYmd(year, 1, 1)));
  add(...withMonday(toYmd(year, 1, 26)));
  add(addDays(easter, -2), addDays(easter, -1), addDays(easter, 1));
  const anzac = toYmd(year, 4, 25);
  add(anzac);
  // NSW, VIC and QLD moved the 2011 Anzac Day holiday off Easter Monday to the Tuesday.
  if (anzac === addDays(easter, 1)) add(addDays(anzac, 1));
  add(toYmd(year, 12, 25), toYmd(year, 12, 26));
  add(...consecutivePair(toYmd(year, 12, 25), 'Christmas Day', 'Boxing Day').map(([date]) => date));
  if (year === 2022) add('20220922');

  const secondMondayOfJune = nthWeekdayOfMonth(year, 6, 1, 2);
  const firstMondayOfOctober = nthWeekdayOfMonth(year, 10, 1, 1);
  switch (state) {
    case undefined:
      break;
    case 'nsw':
      add(secondMondayOfJune, firstMondayOfOctober);
      break;
    case 'vic':
      add(secondMondayOfJune, nthWeekdayOfMonth(year, 3, 1, 2), nthWeekdayOfMonth(year, 11, 2, 1));
      break;
    case 'qld': {
      // Queensland swapped Labour Day and the sovereign's birthday twice: 2013-2015 Labour Day
      // in October, from 2016 the birthday in October and Labour Day back in May.
      const labourInOctober = year >= 2013 && year <= 2015;
      add(labourInOctober ? firstMondayOfOctober : nthWeekdayOfMonth(year, 5, 1, 1));
      add(year >= 2016 ? firstMondayOfOctober : secondMondayOfJune);
      // Anzac Day on a Sunday is observed on the Monday in Queensland.
      if (dayOfWeek(anzac) === 0) add(addDays(anzac, 1));
      break;
    }
    case 'sa':
      // Adelaide Cup, King's Birthday, Labour Day; 26 December is Proclamation Day (already in).
      add(nthWeekdayOfMonth(year, 3, 1, 2), secondMondayOfJune, firstMondayOfOctober);
      if (dayOfWeek(anzac) === 0) add(addDays(anzac, 1));
      break;
  }
  return dates;
}

/** New Zealand national holidays, plus the provincial anniversary day of a node. */
function newZealand(node: 'otahuhu' | 'benmore' | undefined, year: number): Set<string> {
  const dates = new Set<string>();
  const add = (...list: string[]) => {
    for (const date of list) dates.add(date);
  };
  const easter = easterSunday(year);
  // Christmas/Boxing Day and 1/2 January are "Mondayised" as pairs (Holidays Act 2003).
  add(toYmd(year, 1, 1), toYmd(year, 1, 2), toYmd(year, 12, 25), toYmd(year, 12, 26));
  add(...consecutivePair(toYmd(year, 1, 1), "New Year's Day", "Day after New Year's Day").map(([d]) => d));
  add(...consecutivePair(toYmd(year, 12, 25), 'Christmas Day', 'Boxing Day').map(([d]) => d));
  // Waitangi Day and Anzac Day are Mondayised only from 2014.
  for (const date of [toYmd(year, 2, 6), toYmd(year, 4, 25)]) {
    add(...(year >= 2014 ? withMonday(date) : [date]));
  }
  add(addDays(easter, -2), addDays(easter, 1));
  add(nthWeekdayOfMonth(year, 6, 1, 1));
  const matariki = MATARIKI[year];
  if (matariki) add(matariki);
  add(nthWeekdayOfMonth(year, 10, 1, 4));
  if (year === 2022) add('20220926');
  if (node === 'otahuhu') add(aucklandAnniversary(year));
  if (node === 'benmore') add(canterburyAnniversary(year));
  return dates;
}

/** The Monday nearest 29 January. */
export function aucklandAnniversary(year: number): string {
  const anchor = toYmd(year, 1, 29);
  const weekday = dayOfWeek(anchor);
  // Tue-Thu go back to the Monday before; Fri-Sun forward to the Monday after.
  const shift = weekday === 1 ? 0 : weekday >= 2 && weekday <= 4 ? 1 - weekday : (8 - weekday) % 7;
  return addDays(anchor, shift);
}

/** Canterbury (Christchurch Show Day): the second Friday after the first Tuesday of November. */
export function canterburyAnniversary(year: number): string {
  return addDays(nthWeekdayOfMonth(year, 11, 2, 1), 10);
}

/** Whether a weekday counts toward peak hours in a region. */
export function isPeakDay(region: Region, date: string): boolean {
  return !isWeekend(date) && !isRegionalHoliday(region, date);
}
