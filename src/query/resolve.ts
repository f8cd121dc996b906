import type { Selection } from '../domain/codes.js';
import { daysBetween } from '../domain/dates.js';
import type { MarketCode } from '../domain/markets.js';
import type { ClosePublication, DateScope, MarketReader, MarketScope } from '../store/store.js';
import type { ContractParam, TradeScopeParam } from './context.js';
import { QueryError } from './errors.js';

/**
 * The reader-dependent checks every operation shares: does a code name listed contracts, does a
 * date hold data, which day is "current".
 */

/** The selection of a well-formed code; a code naming no product of the catalogue is a 404. */
export function contractSelection(param: ContractParam): Selection {
  const { parsed } = param;
  if (!parsed.ok) {
    throw new QueryError('unknown-contract', parsed.message, [
      { parameter: param.name, message: parsed.message },
    ]);
  }
  return parsed.selection;
}

/**
 * Called when an answer came back empty: a market always answers (possibly with nothing), but
 * a code must name a listed contract, else 404. Checking only on empty answers keeps the
 * common path to one store read.
 */
export async function requireListed(reader: MarketReader, param: TradeScopeParam): Promise<void> {
  if (param.name === 'market' || !param.parsed.ok || param.parsed.form === 'market') return;
  if ((await reader.contracts(param.parsed.selection)).length > 0) return;
  const message = `${param.text} names no listed contract`;
  throw new QueryError('unknown-contract', message, [{ parameter: param.name, message }]);
}

/** The selection of a tradelog / trades scope: a market means its futures and its options. */
export function tradeSelection(param: TradeScopeParam): {
  market: MarketCode;
  selection: Selection | MarketScope;
} {
  if (param.name === 'market') return { market: param.text, selection: { market: param.text } };
  const selection = contractSelection(param);
  return { market: selection.market, selection };
}

function describe(scope: DateScope): string {
  return 'market' in scope ? scope.market : `the ${scope.index} index`;
}

/** The date itself when it holds data for the scope; otherwise a 404 naming the nearest date. */
export async function requireDate(
  reader: MarketReader,
  scope: DateScope,
  date: string,
  parameter = 'date',
): Promise<string> {
  return requireAmong(await reader.dates(scope), date, parameter, {
    none: `${describe(scope)} has no data yet`,
    missing: `${describe(scope)} has no data for ${date}`,
  });
}

/** The latest date holding data for the scope (a 404 when the store holds none). */
export async function latestDateOf(reader: MarketReader, scope: DateScope): Promise<string> {
  const latest = await reader.latestDate(scope);
  if (latest === undefined) throw new QueryError('no-data', `${describe(scope)} has no data yet`);
  return latest;
}

/**
 * A date range must reach into the market's history. Days before its first day or after its
 * latest are unknown, not days without trading, so a range wholly outside it is a 404 naming
 * the nearest date with data, as a single such date is; a range inside it that holds no
 * trading day (a weekend between two stored days) is known to be empty and is answered.
 */
export async function requireRangeInHistory(
  reader: MarketReader,
  market: MarketCode,
  from: string,
  to: string,
): Promise<void> {
  const dates = await reader.dates({ market });
  const first = dates[0];
  const latest = dates.at(-1);
  if (first === undefined || latest === undefined) {
    throw new QueryError('no-data', `${market} has no data yet`, [
      { parameter: 'to', message: 'no data is available' },
    ]);
  }
  const outside =
    to < first
      ? { parameter: 'to', nearest: first, where: `its history begins on ${first}` }
      : from > latest
        ? { parameter: 'from', nearest: latest, where: `its latest day is ${latest}` }
        : undefined;
  if (outside === undefined) return;
  const message = `${market} has no data from ${from} to ${to} (${outside.where}); the nearest available date is ${outside.nearest}`;
  throw new QueryError('no-data', message, [{ parameter: outside.parameter, message }], {
    nearestDate: outside.nearest,
  });
}

const PUBLISHED: Readonly<Record<ClosePublication, { what: string; when: string }>> = {
  settlement: { what: 'settlement', when: 'at the close' },
  open_interest: { what: 'open interest', when: 'after the close' },
};

/**
 * The latest day of the market whose `publication` is out: the default date of the operations
 * about a day (docs/api.md, "Which day an answer is about"). A day still trading has neither
 * publication, so it is never the default: an answer never shows its unknown close as 0.
 */
export async function latestPublished(
  reader: MarketReader,
  market: MarketCode,
  publication: ClosePublication,
): Promise<string> {
  const latest = (await reader.publishedDates({ market, publication })).at(-1);
  if (latest !== undefined) return latest;
  const { what, when } = PUBLISHED[publication];
  const live = await reader.latestDate({ market });
  const message =
    live === undefined
      ? `${market} has no data yet`
      : `${market} has no ${what} published yet (it is published ${when}; ${live} is still trading)`;
  throw new QueryError('no-data', message);
}

/**
 * The date itself when the market's `publication` is out for it; otherwise a 404 naming the
 * nearest date that has it (a day still trading: the latest published one).
 */
export async function requirePublished(
  reader: MarketReader,
  market: MarketCode,
  publication: ClosePublication,
  date: string,
  parameter = 'date',
): Promise<string> {
  const { what, when } = PUBLISHED[publication];
  const [trading, published] = await Promise.all([
    reader.dates({ market }),
    reader.publishedDates({ market, publication }),
  ]);
  return requireAmong(published, date, parameter, {
    none: `${market} has no ${what} published yet (it is published ${when})`,
    missing: trading.includes(date)
      ? `the ${what} of ${market} for ${date} is not published yet (it is published ${when})`
      : `${market} has no ${what} for ${date}`,
  });
}

function requireAmong(
  dates: readonly string[],
  date: string,
  parameter: string,
  messages: { readonly none: string; readonly missing: string },
): string {
  const index = lowerBound(dates, date);
  if (dates[index] === date) return date;
  const nearest = nearestOf(dates[index - 1], dates[index], date);
  if (nearest === undefined) {
    throw new QueryError('no-data', messages.none, [{ parameter, message: 'no data is available' }]);
  }
  const message = `${messages.missing}; the nearest available date is ${nearest}`;
  throw new QueryError('no-data', message, [{ parameter, message }], { nearestDate: nearest });
}

/**
 * The exchange's current trading day (docs/api.md, common rules: "Current day"): the latest date of any
 * market, used by the intraday operations.
 */
export async function currentDay(reader: MarketReader): Promise<string> {
  const latest = await reader.latestDate();
  if (latest === undefined) throw new QueryError('no-data', 'the exchange has no data yet');
  return latest;
}

function lowerBound(sorted: readonly string[], value: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] as string) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The closer of the dates around `date`; the earlier one on a tie. */
function nearestOf(before: string | undefined, after: string | undefined, date: string): string | undefined {
  if (before === undefined) return after;
  if (after === undefined) return before;
  return daysBetween(before, date) <= daysBetween(date, after) ? before : after;
}
