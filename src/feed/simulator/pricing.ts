import type { FuturesContract, OptionContract } from '../../domain/contract.js';
import { daysBetween } from '../../domain/dates.js';
import { deliveryPeriod } from '../../domain/hours.js';
import { black76Price, smileVolatility } from './black76.js';
import type { Quote } from './event-log.js';
import type { Rng } from './prng.js';

/** Interest rate discounting option premiums (paid up front). */
export const RATE = 0.04;

/** Half the usual bid-ask spread as a share of the price, with a floor in cents. */
function halfSpreadOf(contract: FuturesContract): { share: number; floor: number } {
  switch (contract.product.futuresClass) {
    case 'baseQuarterFutures':
      return { share: 0.0035, floor: 5 };
    case 'stripFutures':
    case 'calFutures':
      return { share: 0.003, floor: 5 };
    case 'baseMonthFutures':
    case 'peakQuarterFutures':
      return { share: 0.006, floor: 5 };
    case 'caps':
      return { share: 0.025, floor: 5 };
    case 'gasFutures':
      return { share: 0.005, floor: 2 };
    case 'environmentalFutures':
      return { share: 0.005, floor: 5 };
  }
}

/** A two-sided quote around a mid (fractional cents): bid < ask, both >= 1 cent, sizes 1..50. */
export function quoteAround(rng: Rng, mid: number, halfSpread: number): Quote {
  const half = halfSpread * rng.uniform(0.6, 1.6);
  const bid = Math.max(1, Math.floor(mid - half));
  const ask = Math.max(bid + 1, Math.ceil(mid + half));
  return { bid, ask, bidSize: lotsOnScreen(rng), askSize: lotsOnScreen(rng) };
}

export function futuresQuote(rng: Rng, contract: FuturesContract, mid: number): Quote {
  const spread = halfSpreadOf(contract);
  return quoteAround(rng, mid, Math.max(spread.floor, mid * spread.share));
}

/** Premiums are quoted a few percent wide, at least 2 cents each side. */
export function optionQuote(rng: Rng, premium: number): Quote {
  return quoteAround(rng, premium, Math.max(2, premium * 0.03));
}

/** Screen depth: mostly small, sometimes a larger resting order. */
function lotsOnScreen(rng: Rng): number {
  return Math.min(50, Math.max(1, Math.round(3 * Math.exp(0.9 * rng.normal()))));
}

/**
 * Years from `date` to the middle of the delivery period: the options are average-rate options
 * (settled on the average spot price of the period), whose effective horizon is about that.
 */
export function optionYears(contract: OptionContract | FuturesContract, date: string): number {
  if (date !== yearsDate) {
    yearsCache.clear();
    yearsDate = date;
  }
  const key = `${contract.product.root}${contract.month}:${contract.year}`;
  let years = yearsCache.get(key);
  if (years === undefined) {
    const { first, last } = deliveryPeriod(contract);
    const days = daysBetween(date, first) + (daysBetween(first, last) + 1) / 2;
    years = Math.max(days, 1) / 365;
    yearsCache.set(key, years);
  }
  return years;
}

/** Thousands of option series share a few dozen underlyings: memoised per date. */
const yearsCache = new Map<string, number>();
let yearsDate = '';

/** At-the-money volatility before the market-wide factor: strips are calmer, peak wilder. */
function baseAtmVolatility(contract: OptionContract): number {
  const nz = contract.product.market === 'nz_electricity';
  if (contract.product.period === 'year') return nz ? 0.2 : 0.22;
  if (contract.product.load === 'peak') return 0.36;
  return nz ? 0.26 : 0.3;
}

export interface OptionValue {
  /** Premium in whole cents, at least 1. */
  readonly premiumCents: number;
  /** Fractional premium in cents, before rounding (for quoting around). */
  readonly premium: number;
  /** Implied volatility in hundredths of a percent (2228 = "22.28"). */
  readonly volatilityBasisPoints: number;
}

/** Black-76 value of an option on the smile, for an underlying price in (fractional) cents. */
export function optionValue(
  contract: OptionContract,
  forwardCents: number,
  date: string,
  volatilityFactor: number,
): OptionValue {
  const years = optionYears(contract, date);
  // Short-dated options carry more volatility (the spot month's spikes are close).
  const atm = baseAtmVolatility(contract) * volatilityFactor * (1 + 0.25 * Math.exp(-years / 0.3));
  const volatility = smileVolatility(atm, forwardCents, contract.strikeCents);
  const premium =
    100 *
    black76Price({
      forward: forwardCents / 100,
      strike: contract.strikeCents / 100,
      years,
      volatility,
      rate: RATE,
      optionType: contract.optionType,
    });
  return {
    premium,
    premiumCents: Math.max(1, Math.round(premium)),
    volatilityBasisPoints: Math.round(volatility * 10_000),
  };
}
