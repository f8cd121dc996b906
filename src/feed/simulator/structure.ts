import { PRODUCTS, type Product } from '../../domain/catalogue.js';
import { type FuturesContract, futuresCode, parseContractCode } from '../../domain/contract.js';
import { parseYmd } from '../../domain/dates.js';
import { divideRounded } from '../../domain/decimal.js';
import { deliveryHours, deliveryPeriod } from '../../domain/hours.js';

/**
 * How contracts relate on one regional curve: a base month lies in a base quarter, a base
 * strip is four base quarters. The simulator prices months and strips from their quarters so
 * that the whole curve of a region stays consistent.
 */

const futuresCache = new Map<string, FuturesContract>();

/** The futures contract of a catalogue root, month and year (listed or not: a curve point). */
export function futures(root: string, month: number, year: number): FuturesContract {
  const code = futuresCode(root, month, year);
  let contract = futuresCache.get(code);
  if (!contract) {
    const parsed = parseContractCode(code);
    if (parsed?.kind !== 'future') throw new Error(`not a futures code of the catalogue: ${code}`);
    contract = parsed;
    futuresCache.set(code, contract);
  }
  return contract;
}

const baseQuarterProduct = new Map<string, Product>();
for (const product of PRODUCTS) {
  if (product.futuresClass === 'baseQuarterFutures') baseQuarterProduct.set(product.region, product);
}

/** The base-load quarter product of an electricity product's region. */
export function baseQuarterOf(product: Product): Product | undefined {
  if (product.market !== 'au_electricity' && product.market !== 'nz_electricity') return undefined;
  return baseQuarterProduct.get(product.region);
}

/** Base month and strip futures are priced from base quarters; everything else has its own path. */
export function isDerived(contract: FuturesContract): boolean {
  const { product } = contract;
  return (
    baseQuarterOf(product) !== undefined &&
    product.load === 'base' &&
    (product.period === 'month' || product.period === 'year')
  );
}

/** The base quarter containing an electricity base month. */
export function quarterOfMonth(contract: FuturesContract): FuturesContract {
  const quarter = baseQuarterOf(contract.product);
  if (!quarter) throw new Error(`${contract.code} has no base quarter`);
  return futures(quarter.root, Math.ceil(contract.month / 3) * 3, contract.year);
}

/** The four base quarters of a strip, in delivery order (HNM2026: BNU2025 .. BNM2026). */
export function stripQuarters(contract: FuturesContract): FuturesContract[] {
  const quarter = baseQuarterOf(contract.product);
  if (!quarter) throw new Error(`${contract.code} has no base quarter`);
  const legs: FuturesContract[] = [];
  for (let back = 3; back >= 0; back--) {
    const index = contract.year * 12 + (contract.month - 1) - back * 3;
    legs.push(futures(quarter.root, (index % 12) + 1, Math.floor(index / 12)));
  }
  return legs;
}

/** Strips of the AU market trade as their quarter legs (trade type Z); NZ strips trade alone. */
export function isAuStrip(contract: { product: Product }): boolean {
  return contract.product.market === 'au_electricity' && contract.product.futuresClass === 'stripFutures';
}

/**
 * Hours-weighted mean of integer cents, rounded half up: the price of a strip from its quarter
 * prices (weights = each quarter's delivery hours). Integer arithmetic only, so it is exact.
 */
export function hoursWeightedCents(legs: readonly FuturesContract[], cents: readonly number[]): number {
  let weighted = 0;
  let hours = 0;
  legs.forEach((leg, i) => {
    const legHours = deliveryHours(leg);
    weighted += legHours * (cents[i] ?? 0);
    hours += legHours;
  });
  return divideRounded(weighted, hours);
}

const aheadCache = new Map<string, number>();
let aheadDate = '';

/** Whole months from the month of `date` to the first delivery month of a contract. */
export function monthsAhead(contract: FuturesContract, date: string): number {
  if (date !== aheadDate) {
    aheadCache.clear();
    aheadDate = date;
  }
  let months = aheadCache.get(contract.code);
  if (months === undefined) {
    const today = parseYmd(date);
    const first = parseYmd(deliveryPeriod(contract).first);
    months = first.year * 12 + first.month - (today.year * 12 + today.month);
    aheadCache.set(contract.code, months);
  }
  return months;
}
