import { type Product, periodMonths } from './catalogue.js';
import { addDays, daysBetween, daysInMonth, toYmd } from './dates.js';
import { isPeakDay } from './holidays.js';

/** What hours depend on; futures and options (which carry their underlying's) both fit. */
export interface DeliveryContract {
  readonly product: Product;
  /** 1..12, the LAST month of the delivery period. */
  readonly month: number;
  readonly year: number;
}

export interface DeliveryPeriod {
  /** First delivery day, yyyyMMdd. */
  readonly first: string;
  /** Last delivery day, yyyyMMdd (inclusive). */
  readonly last: string;
}

/**
 * Peak load: 07:00-22:00 on weekdays that are not regional public holidays (docs/market-rules.md, delivery
 * hours and face value).
 */
export const PEAK_HOURS_PER_DAY = 15;

/**
 * The delivery period, which ENDS with the contract's month: BNH2026 = Jan..Mar 2026, HNM2026 =
 * Jul 2025..Jun 2026. Environmental certificate futures are the exception: an annual "Dec"
 * contract delivers certificates at its December expiry, so its period is that month (this
 * keeps the current year's contract tradable through the year).
 */
export function deliveryPeriod(contract: DeliveryContract): DeliveryPeriod {
  const { product, month, year } = contract;
  const months = isCertificate(product) ? 1 : periodMonths(product.period);
  const startIndex = year * 12 + (month - 1) - (months - 1);
  const startYear = Math.floor(startIndex / 12);
  const startMonth = (startIndex % 12) + 1;
  return { first: toYmd(startYear, startMonth, 1), last: toYmd(year, month, daysInMonth(year, month)) };
}

function isCertificate(product: Product): boolean {
  return product.market === 'au_environmental' || product.market === 'nz_environmental';
}

const cache = new Map<string, number>();

/**
 * Delivery hours: base load and caps = days x 24 (NEM and NZ time both ignore daylight
 * saving); peak = 15 x weekdays that are not public holidays of the product's region; 0 for
 * gas and environmental products, which have no hours.
 */
export function deliveryHours(contract: DeliveryContract): number {
  const { product, month, year } = contract;
  if (product.load === 'none') return 0;
  const key = `${product.root}${month}:${year}`;
  const known = cache.get(key);
  if (known !== undefined) return known;
  const { first, last } = deliveryPeriod(contract);
  const hours =
    product.load === 'base'
      ? (daysBetween(first, last) + 1) * 24
      : peakDays(product, first, last) * PEAK_HOURS_PER_DAY;
  cache.set(key, hours);
  return hours;
}

function peakDays(product: Product, first: string, last: string): number {
  let days = 0;
  for (let day = first; day <= last; day = addDays(day, 1)) {
    if (isPeakDay(product.region, day)) days += 1;
  }
  return days;
}
