import { PRODUCTS, type Product } from './catalogue.js';
import { type Contract, futuresCode, isStrikeOnGrid, optionCode, parseContractCode } from './contract.js';
import { parseYmd } from './dates.js';
import { deliveryPeriod } from './hours.js';

/**
 * Which contracts are listed on a trading date, derived from the date alone so that the
 * simulator, the store and the API agree without sharing state. A contract is listed while
 * it can still be traded, up to a horizon of contracts per product: month and quarter futures
 * (and annual certificates) trade until their delivery period ENDS, as the real market shows
 * (BNH2025 settles on 27 Feb 2025); strips and options until their delivery period starts
 * (a strip is its four quarters traded at once; options expire before delivery).
 */

/** `count` upcoming contracts among the product's months in `letters`. */
export interface Horizon {
  readonly letters: string;
  readonly count: number;
}

const QUARTER_LETTERS = 'HMUZ';

/** Futures horizons per product (see the module comment). */
export function futuresHorizons(product: Product): Horizon[] {
  const nz = product.market === 'nz_electricity';
  switch (product.futuresClass) {
    case 'baseMonthFutures':
      return [{ letters: product.months, count: 6 }];
    case 'gasFutures':
      return [{ letters: product.months, count: 12 }];
    case 'baseQuarterFutures':
      return [{ letters: QUARTER_LETTERS, count: nz ? 12 : 16 }];
    case 'peakQuarterFutures':
    case 'caps':
      return [{ letters: QUARTER_LETTERS, count: 8 }];
    case 'stripFutures':
      return [
        { letters: 'Z', count: 4 },
        { letters: 'M', count: 4 },
      ];
    case 'calFutures':
    case 'environmentalFutures':
      return [{ letters: 'Z', count: 4 }];
  }
}

/** Option horizons: the nearest underlyings only; none where the product has no options. */
export function optionHorizons(product: Product): Horizon[] {
  if (!product.hasOptions) return [];
  switch (product.futuresClass) {
    case 'baseQuarterFutures':
      return [{ letters: QUARTER_LETTERS, count: 4 }];
    case 'peakQuarterFutures':
      return [{ letters: QUARTER_LETTERS, count: 2 }];
    case 'stripFutures':
      return [
        { letters: 'Z', count: 2 },
        { letters: 'M', count: 2 },
      ];
    case 'calFutures':
      return [{ letters: 'Z', count: 2 }];
    default:
      return [];
  }
}

/** Option strikes are centred on a typical price: every grid strike within +-25% of it. */
export const STRIKE_BAND_PERCENT = 25;

export function listedStrikes(product: Product): number[] {
  const reference = product.referencePriceCents;
  const low = Math.ceil((reference * (100 - STRIKE_BAND_PERCENT)) / 100);
  const high = Math.floor((reference * (100 + STRIKE_BAND_PERCENT)) / 100);
  const strikes: number[] = [];
  // Every grid strike is a whole dollar, so stepping by $1 and filtering visits them all.
  for (let strike = Math.ceil(low / 100) * 100; strike <= high; strike += 100) {
    if (isStrikeOnGrid(strike)) strikes.push(strike);
  }
  return strikes;
}

/** Whether a contract of this kind still trades on `date` (see the module comment). */
function tradable(
  product: Product,
  kind: 'future' | 'option',
  period: { first: string; last: string },
  date: string,
) {
  const untilEnd = kind === 'future' && product.period !== 'year';
  return untilEnd ? period.last >= date : period.first > date;
}

/** The (month, year) of the next `count` contracts of the product still tradable on `date`. */
function upcoming(
  product: Product,
  horizon: Horizon,
  date: string,
  kind: 'future' | 'option',
): Array<{ month: number; year: number }> {
  const { year, month } = parseYmd(date);
  const found: Array<{ month: number; year: number }> = [];
  // Start a year back: a period that began before this month may still be in delivery.
  for (let index = year * 12 + month - 13; found.length < horizon.count; index += 1) {
    const candidate = { month: (index % 12) + 1, year: Math.floor(index / 12) };
    const letter = 'FGHJKMNQUVXZ'[candidate.month - 1] ?? '';
    if (!horizon.letters.includes(letter) || !product.months.includes(letter)) continue;
    if (tradable(product, kind, deliveryPeriod({ product, ...candidate }), date)) found.push(candidate);
  }
  return found;
}

const contracts = new Map<string, Contract>();

function contract(code: string): Contract {
  let known = contracts.get(code);
  if (!known) {
    known = parseContractCode(code);
    if (!known) throw new Error(`listing produced a code the catalogue refuses: ${code}`);
    contracts.set(code, known);
  }
  return known;
}

function compute(date: string): readonly Contract[] {
  const listed: Contract[] = [];
  for (const product of PRODUCTS) {
    for (const horizon of futuresHorizons(product)) {
      for (const { month, year } of upcoming(product, horizon, date, 'future')) {
        listed.push(contract(futuresCode(product.root, month, year)));
      }
    }
    const strikes = listedStrikes(product);
    for (const horizon of optionHorizons(product)) {
      for (const { month, year } of upcoming(product, horizon, date, 'option')) {
        const underlying = futuresCode(product.root, month, year);
        for (const strike of strikes) {
          listed.push(contract(optionCode(underlying, strike, 'C')));
          listed.push(contract(optionCode(underlying, strike, 'P')));
        }
      }
    }
  }
  return listed.sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
}

/** Small: a simulation walks dates in order, and a query touches one or two dates. */
const CACHE_SIZE = 16;
const byDate = new Map<string, { all: readonly Contract[]; codes: ReadonlySet<string> }>();

function listing(date: string) {
  let entry = byDate.get(date);
  if (!entry) {
    const all = compute(date);
    entry = { all, codes: new Set(all.map((item) => item.code)) };
    if (byDate.size >= CACHE_SIZE) {
      const oldest = byDate.keys().next();
      if (!oldest.done) byDate.delete(oldest.value);
    }
    byDate.set(date, entry);
  }
  return entry;
}

/** Futures and options listed on `date` (yyyyMMdd), sorted by canonical code. */
export function listedContracts(date: string): Contract[] {
  return [...listing(date).all];
}

export function listedFutures(date: string): Contract[] {
  return listing(date).all.filter((item) => item.kind === 'future');
}

export function listedOptions(date: string): Contract[] {
  return listing(date).all.filter((item) => item.kind === 'option');
}

/** Whether a canonical code is listed on `date`. */
export function isListed(code: string, date: string): boolean {
  return listing(date).codes.has(code);
}
