/**
 * Dates as the API writes them: `yyyyMMdd` strings of the exchange's calendar (Sydney time).
 * Pure string arithmetic over UTC dates, so results never depend on the machine's time zone.
 */

const YMD = /^(\d{4})(\d{2})(\d{2})$/;
const ISO = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;
const EXCHANGE_TIME_ZONE = 'Australia/Sydney';

/**
 * `yyyyMMdd` of a Date (its calendar day in Sydney, the exchange's time zone, unless another
 * IANA zone is given) or of a string `yyyyMMdd` / `yyyy-MM-dd` (validated).
 */
export function ymd(date: Date | string, timeZone: string = EXCHANGE_TIME_ZONE): string {
  if (typeof date === 'string') {
    const match = YMD.exec(date) ?? ISO.exec(date);
    const text = match ? `${match[1]}${match[2]}${match[3]}` : '';
    if (!match || toDate(text).toISOString().slice(0, 10) !== `${match[1]}-${match[2]}-${match[3]}`) {
      throw new RangeError(`not a calendar date (yyyyMMdd or yyyy-MM-dd): ${JSON.stringify(date)}`);
    }
    return text;
  }
  if (Number.isNaN(date.getTime())) throw new RangeError('invalid Date');
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(date);
  const part = (type: string) => parts.find((candidate) => candidate.type === type)?.value ?? '';
  return `${part('year')}${part('month')}${part('day')}`;
}

/** Midnight UTC of a `yyyyMMdd` day (no validation: see ymd). */
function toDate(day: string): Date {
  return new Date(Date.UTC(Number(day.slice(0, 4)), Number(day.slice(4, 6)) - 1, Number(day.slice(6, 8))));
}

function fromDate(date: Date): string {
  return date.toISOString().slice(0, 10).replaceAll('-', '');
}

/** `yyyyMMdd` -> `yyyy-MM-dd`. */
export function isoDate(day: string): string {
  const valid = ymd(day);
  return `${valid.slice(0, 4)}-${valid.slice(4, 6)}-${valid.slice(6, 8)}`;
}

export function addDays(day: string, days: number): string {
  return fromDate(new Date(toDate(ymd(day)).getTime() + days * DAY_MS));
}

/** Every calendar day from `from` to `to`, both included (none when `from` is after `to`). */
export function* eachDay(from: string, to: string): Generator<string> {
  const last = ymd(to);
  for (let day = ymd(from); day <= last; day = addDays(day, 1)) yield day;
}

/**
 * Monday to Friday from `from` to `to`: the exchange trades only on weekdays. Its holidays are
 * not known here; the API answers a holiday with a 404 naming the nearest day with data.
 */
export function* eachWeekday(from: string, to: string): Generator<string> {
  for (const day of eachDay(from, to)) {
    const weekday = toDate(day).getUTCDay();
    if (weekday !== 0 && weekday !== 6) yield day;
  }
}
