import type { Product } from '../../domain/catalogue.js';
import type { FuturesContract } from '../../domain/contract.js';
import { isLeapYear, parseYmd } from '../../domain/dates.js';
import { deliveryHours } from '../../domain/hours.js';
import type { MarketCode } from '../../domain/markets.js';
import { Rng } from './prng.js';
import { baseQuarterOf, futures, stripQuarters } from './structure.js';

/**
 * Forward curves. Each curve (an electricity region, the gas hub, each certificate product)
 * has a level that follows a mean-reverting daily random walk, correlated between the regions
 * of one country. A contract's fair price = reference price x level x fixed shape (seasonality,
 * a per-year and per-month texture drawn once from the seed). Only base months are priced
 * directly; quarters, strips and peak quarters are built from them, so months, quarters and
 * strips of a region always agree.
 */

const AU_REGIONS = ['nsw', 'qld', 'vic', 'sa'] as const;
const NZ_REGIONS = ['otahuhu', 'benmore'] as const;
const OTHER_CURVES = ['wallumbilla', 'CA', 'CL', 'CN'] as const;
const ALL_CURVES = [...AU_REGIONS, ...NZ_REGIONS, ...OTHER_CURVES];

/** Monthly seasonality (Jan..Dec). AU: summer (Q1) and winter (Q3) dearer; NZ: winter dearer. */
const AU_SEASON = [1.12, 1.14, 1.03, 0.9, 0.93, 1.05, 1.15, 1.1, 0.93, 0.86, 0.88, 0.98];
const NZ_SEASON = [0.86, 0.86, 0.92, 0.98, 1.05, 1.14, 1.18, 1.14, 1.04, 0.96, 0.92, 0.9];
const GAS_SEASON = [0.94, 0.94, 0.96, 1, 1.04, 1.08, 1.1, 1.08, 1.02, 0.98, 0.95, 0.93];
/** Peak premium over base by quarter (H M U Z): evening peaks in summer and winter. */
const AU_PEAK_SEASON = [1.06, 0.97, 1.04, 0.95];
/** $300 caps pay out in price spikes, mostly in summer heat waves. */
const CAP_SEASON = [1.55, 0.6, 1, 0.7];
/** Yearly drift of certificate futures: ACCU and NZU in contango, LGC falls to the scheme's end. */
const CERTIFICATE_CARRY: Readonly<Record<string, number>> = { CA: 0.04, CL: -0.12, CN: 0.03 };

interface WalkSpec {
  readonly volatility: number;
  readonly correlation: number;
}

/** Daily volatility of the level and its correlation with its country's common factor. */
const WALK: Readonly<Record<string, WalkSpec>> = {
  au: { volatility: 0.014, correlation: 0.75 },
  nz: { volatility: 0.013, correlation: 0.85 },
  other: { volatility: 0.011, correlation: 0 },
};
/** Mean reversion per day toward the seed's anchor, so a long history stays in a sane range. */
const REVERSION = 0.015;
/** Days per month outside February (base hours are days x 24). */
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const OPTION_MARKETS: readonly MarketCode[] = ['au_electricity', 'nz_electricity'];

export class Curve {
  private readonly seed: number;
  private readonly anchors = new Map<string, number>();
  private readonly levels = new Map<string, number>();
  private readonly volatilityLevels = new Map<MarketCode, number>();
  private readonly shapes = new Map<string, number>();
  private readonly fairCache = new Map<string, number>();
  private year = 0;

  constructor(seed: number) {
    this.seed = seed;
    const rng = Rng.derive(seed, 'curve-anchors');
    for (const key of ALL_CURVES) {
      const anchor = 0.05 * rng.normal();
      this.anchors.set(key, anchor);
      this.levels.set(key, anchor + 0.04 * rng.normal());
    }
    for (const market of OPTION_MARKETS) this.volatilityLevels.set(market, 0.1 * rng.normal());
  }

  /** Moves every level `steps` trading days forward (0 on the first day) and dates the curve. */
  advance(date: string, steps: number): void {
    this.year = parseYmd(date).year;
    this.fairCache.clear();
    const rng = Rng.derive(this.seed, 'curve-walk', date);
    for (let step = 0; step < steps; step++) {
      const common = { au: rng.normal(), nz: rng.normal() };
      for (const key of ALL_CURVES) {
        const group = (AU_REGIONS as readonly string[]).includes(key)
          ? 'au'
          : (NZ_REGIONS as readonly string[]).includes(key)
            ? 'nz'
            : 'other';
        const spec = WALK[group] ?? { volatility: 0.01, correlation: 0 };
        const shared = group === 'other' ? 0 : common[group];
        const shock = spec.correlation * shared + Math.sqrt(1 - spec.correlation ** 2) * rng.normal();
        const level = this.levels.get(key) ?? 0;
        const anchor = this.anchors.get(key) ?? 0;
        this.levels.set(key, level - REVERSION * (level - anchor) + spec.volatility * shock);
      }
      for (const market of OPTION_MARKETS) {
        const level = this.volatilityLevels.get(market) ?? 0;
        this.volatilityLevels.set(market, level - 0.05 * level + 0.03 * rng.normal());
      }
    }
  }

  /** Multiplier of the market's at-the-money volatilities (a slow random walk around 1). */
  volatilityFactor(market: MarketCode): number {
    return Math.exp(this.volatilityLevels.get(market) ?? 0);
  }

  /** Fair price in (fractional) cents of any futures contract, listed or not. */
  fair(contract: FuturesContract): number {
    let price = this.fairCache.get(contract.code);
    if (price === undefined) {
      price = this.computeFair(contract);
      this.fairCache.set(contract.code, price);
    }
    return price;
  }

  private computeFair(contract: FuturesContract): number {
    const { product, month, year } = contract;
    switch (product.futuresClass) {
      case 'baseMonthFutures':
        return this.baseMonth(product, month, year);
      case 'baseQuarterFutures':
        return this.baseQuarter(product, month, year);
      case 'stripFutures':
      case 'calFutures': {
        const legs = stripQuarters(contract);
        let weighted = 0;
        let hours = 0;
        for (const leg of legs) {
          const legHours = deliveryHours(leg);
          weighted += legHours * this.fair(leg);
          hours += legHours;
        }
        return weighted / hours;
      }
      case 'peakQuarterFutures': {
        const base = baseQuarterOf(product) ?? product;
        const ratio = product.referencePriceCents / base.referencePriceCents;
        const season = product.market === 'au_electricity' ? (AU_PEAK_SEASON[month / 3 - 1] ?? 1) : 1;
        const noise = this.shape(`peak:${product.root}:${month}:${year}`, 0.02);
        return this.fair(futures(base.root, month, year)) * ratio * season * noise;
      }
      case 'caps': {
        // Spikes grow faster than the level: caps move about 1.5 times as much in log terms.
        const level = Math.exp(1.5 * this.level(product));
        const texture = this.shape(`cap:${product.root}:${month}:${year}`, 0.08);
        return product.referencePriceCents * (CAP_SEASON[month / 3 - 1] ?? 1) * level * texture;
      }
      case 'gasFutures':
        return (
          product.referencePriceCents *
          Math.exp(this.level(product)) *
          (GAS_SEASON[month - 1] ?? 1) *
          this.shape(`year:${product.root}:${year}`, 0.04) *
          this.shape(`month:${product.root}:${month}:${year}`, 0.015)
        );
      case 'environmentalFutures': {
        const carry = CERTIFICATE_CARRY[product.root] ?? 0;
        return (
          product.referencePriceCents *
          Math.exp(this.level(product)) *
          (1 + carry) ** (year - this.year) *
          this.shape(`year:${product.root}:${year}`, 0.01)
        );
      }
    }
  }

  private baseMonth(product: Product, month: number, year: number): number {
    const base = baseQuarterOf(product) ?? product;
    const key = base.region;
    const table = product.market === 'nz_electricity' ? NZ_SEASON : AU_SEASON;
    // Each region's seasonality has its own amplitude (SA and VIC swing more in winter, say).
    const amplitude = this.shape(`amplitude:${key}`, 0.2);
    const season = 1 + amplitude * ((table[month - 1] ?? 1) - 1);
    return (
      base.referencePriceCents *
      Math.exp(this.level(product)) *
      season *
      this.shape(`year:${key}:${year}`, 0.05) *
      this.shape(`month:${key}:${month}:${year}`, 0.02)
    );
  }

  /** Day-weighted mean of the quarter's three months: base hours are days x 24. */
  private baseQuarter(product: Product, month: number, year: number): number {
    let weighted = 0;
    let days = 0;
    for (let m = month - 2; m <= month; m++) {
      const monthDays = m === 2 ? (isLeapYear(year) ? 29 : 28) : (MONTH_DAYS[m - 1] ?? 30);
      weighted += monthDays * this.baseMonth(product, m, year);
      days += monthDays;
    }
    return weighted / days;
  }

  private level(product: Product): number {
    const key =
      product.market === 'au_environmental' || product.market === 'nz_environmental'
        ? product.root
        : product.region;
    return this.levels.get(key) ?? 0;
  }

  /** A fixed log-normal factor drawn once per (seed, label): the curve's texture. */
  private shape(label: string, sigma: number): number {
    let factor = this.shapes.get(label);
    if (factor === undefined) {
      factor = Math.exp(sigma * Rng.derive(this.seed, 'shape', label).normal());
      this.shapes.set(label, factor);
    }
    return factor;
  }
}
