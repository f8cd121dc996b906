import type { FuturesClass, Region } from '../../domain/catalogue.js';
import type { FuturesContract } from '../../domain/contract.js';
import type { MarketCode } from '../../domain/markets.js';
import type { DayListing } from './day-listing.js';
import { SESSION_SECONDS } from './intraday.js';
import type { Rng } from './prng.js';
import { monthsAhead } from './structure.js';

/**
 * The plan of a day: what happens when, decided before any price is known. Prices come later,
 * when the actions run in time order (see session.ts), because intraday paths are sampled
 * forward in time.
 */
export type Action =
  | {
      readonly kind: 'screen' | 'strip' | 'block' | 'efp' | 'quote' | 'rfq';
      readonly second: number;
      readonly contract: FuturesContract;
    }
  | {
      readonly kind: 'option' | 'option-quote';
      readonly second: number;
      readonly underlying: FuturesContract;
    }
  | { readonly kind: 'custom'; readonly second: number; readonly market: MarketCode }
  | { readonly kind: 'close'; readonly second: number };

type FlowKind = 'screen' | 'strip' | 'block' | 'efp' | 'option' | 'quote' | 'option-quote' | 'rfq' | 'custom';

interface Flow {
  readonly kind: FlowKind;
  readonly market: MarketCode;
  /** Mean number per day (Poisson). */
  readonly perDay: number;
  /** Relative weight of each futures class among the candidates. */
  readonly classes?: Partial<Record<FuturesClass, number>>;
  /** Share of the flow registered after the close (off-screen trades only). */
  readonly late?: number;
}

/**
 * Daily activity by market, tuned to the real day of docs/market-rules.md (reference rows) (AU electricity:
 * 387 trade
 * log rows, 1,438 lots): about 190 outrights, 33 strips (5 rows each), 5 blocks and 24 option
 * trades; NZ a few dozen trades, gas a handful, certificates 10-20.
 */
const FLOWS: readonly Flow[] = [
  {
    kind: 'screen',
    market: 'au_electricity',
    perDay: 190,
    classes: { baseQuarterFutures: 0.62, peakQuarterFutures: 0.1, caps: 0.12, baseMonthFutures: 0.16 },
  },
  { kind: 'strip', market: 'au_electricity', perDay: 33 },
  {
    kind: 'block',
    market: 'au_electricity',
    perDay: 5,
    classes: { baseQuarterFutures: 0.75, peakQuarterFutures: 0.1, caps: 0.15 },
    late: 0.12,
  },
  { kind: 'efp', market: 'au_electricity', perDay: 0.6, classes: { baseQuarterFutures: 1 }, late: 0.2 },
  { kind: 'option', market: 'au_electricity', perDay: 24 },
  {
    kind: 'quote',
    market: 'au_electricity',
    perDay: 2200,
    classes: {
      baseQuarterFutures: 1,
      baseMonthFutures: 0.3,
      stripFutures: 0.5,
      peakQuarterFutures: 0.3,
      caps: 0.35,
    },
  },
  { kind: 'option-quote', market: 'au_electricity', perDay: 250 },
  {
    kind: 'rfq',
    market: 'au_electricity',
    perDay: 9,
    classes: { baseQuarterFutures: 0.5, stripFutures: 0.35, peakQuarterFutures: 0.05, caps: 0.1 },
  },
  { kind: 'custom', market: 'au_electricity', perDay: 4 },
  {
    kind: 'screen',
    market: 'nz_electricity',
    perDay: 26,
    classes: { baseQuarterFutures: 0.65, baseMonthFutures: 0.12, peakQuarterFutures: 0.08, calFutures: 0.15 },
  },
  { kind: 'block', market: 'nz_electricity', perDay: 0.25, classes: { baseQuarterFutures: 1 }, late: 0.1 },
  { kind: 'option', market: 'nz_electricity', perDay: 3 },
  {
    kind: 'quote',
    market: 'nz_electricity',
    perDay: 350,
    classes: { baseQuarterFutures: 1, baseMonthFutures: 0.3, peakQuarterFutures: 0.3, calFutures: 0.5 },
  },
  { kind: 'option-quote', market: 'nz_electricity', perDay: 30 },
  { kind: 'rfq', market: 'nz_electricity', perDay: 3, classes: { baseQuarterFutures: 0.6, calFutures: 0.4 } },
  { kind: 'custom', market: 'nz_electricity', perDay: 1 },
  { kind: 'screen', market: 'au_gas', perDay: 3, classes: { gasFutures: 1 } },
  { kind: 'block', market: 'au_gas', perDay: 0.2, classes: { gasFutures: 1 }, late: 0.1 },
  { kind: 'quote', market: 'au_gas', perDay: 60, classes: { gasFutures: 1 } },
  { kind: 'rfq', market: 'au_gas', perDay: 0.2, classes: { gasFutures: 1 } },
  { kind: 'screen', market: 'au_environmental', perDay: 9, classes: { environmentalFutures: 1 } },
  { kind: 'quote', market: 'au_environmental', perDay: 100, classes: { environmentalFutures: 1 } },
  { kind: 'screen', market: 'nz_environmental', perDay: 5, classes: { environmentalFutures: 1 } },
  { kind: 'quote', market: 'nz_environmental', perDay: 50, classes: { environmentalFutures: 1 } },
];

/** How fast interest thins out along the curve, in months to delivery. */
const DECAY_MONTHS: Readonly<Record<FuturesClass, number>> = {
  baseMonthFutures: 1.5,
  baseQuarterFutures: 8,
  peakQuarterFutures: 6,
  caps: 6,
  calFutures: 12,
  stripFutures: 12,
  gasFutures: 3,
  environmentalFutures: 12,
};

const REGION_ACTIVITY: Partial<Record<Region, number>> = {
  nsw: 0.36,
  qld: 0.26,
  vic: 0.28,
  sa: 0.1,
  otahuhu: 0.55,
  benmore: 0.45,
};

/** Option underlyings by the share of option trading they draw. */
const OPTION_CLASSES: Partial<Record<FuturesClass, number>> = {
  baseQuarterFutures: 0.55,
  peakQuarterFutures: 0.1,
  stripFutures: 0.2,
  calFutures: 0.3,
};

/** Cumulative weights and a binary search: thousands of draws per day over ~100 contracts. */
class WeightedPicker<T> {
  private readonly items: T[] = [];
  private readonly cumulative: number[] = [];
  private total = 0;

  add(item: T, weight: number): void {
    if (!(weight > 0)) return;
    this.total += weight;
    this.items.push(item);
    this.cumulative.push(this.total);
  }

  get empty(): boolean {
    return this.items.length === 0;
  }

  pick(rng: Rng): T {
    const target = rng.float() * this.total;
    let low = 0;
    let high = this.cumulative.length - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((this.cumulative[mid] ?? 0) > target) high = mid;
      else low = mid + 1;
    }
    return this.items[low] as T;
  }
}

function activityWeight(contract: FuturesContract, date: string): number {
  const decay = DECAY_MONTHS[contract.product.futuresClass];
  // Contracts already in delivery (months and quarters trade to their end) count as nearest.
  const ahead = Math.max(0, monthsAhead(contract, date));
  return (REGION_ACTIVITY[contract.product.region] ?? 1) * Math.exp(-ahead / decay);
}

function picker(
  candidates: readonly FuturesContract[],
  classes: Partial<Record<FuturesClass, number>>,
  date: string,
): WeightedPicker<FuturesContract> {
  const result = new WeightedPicker<FuturesContract>();
  for (const contract of candidates) {
    const share = classes[contract.product.futuresClass] ?? 0;
    if (share > 0) result.add(contract, share * activityWeight(contract, date));
  }
  return result;
}

/** Screen activity clusters at the open and before the close (the usual U shape). */
function sessionSecond(rng: Rng): number {
  const draw = rng.float();
  if (draw < 0.22) return rng.int(0, 2699);
  if (draw < 0.47) return rng.int(SESSION_SECONDS - 2700, SESSION_SECONDS - 1);
  return rng.int(0, SESSION_SECONDS - 1);
}

/** Late registrations run up to 16:59:59. */
const LAST_SECOND = 7 * 3600 - 1;

export function planDay(rng: Rng, date: string, listing: DayListing): Action[] {
  const actions: Action[] = [];
  for (const flow of FLOWS) {
    const count = rng.poisson(flow.perDay);
    if (count === 0) continue;
    const candidates = listing.futures.get(flow.market) ?? [];
    if (flow.kind === 'custom') {
      for (let i = 0; i < count; i++) {
        actions.push({ kind: 'custom', second: rng.int(0, SESSION_SECONDS - 1), market: flow.market });
      }
      continue;
    }
    if (flow.kind === 'option' || flow.kind === 'option-quote') {
      const underlyings = picker(
        listing.optionUnderlyings.filter((c) => c.product.market === flow.market),
        OPTION_CLASSES,
        date,
      );
      if (underlyings.empty) continue;
      for (let i = 0; i < count; i++) {
        actions.push({ kind: flow.kind, second: sessionSecond(rng), underlying: underlyings.pick(rng) });
      }
      continue;
    }
    const pool =
      flow.kind === 'strip'
        ? picker(listing.tradableStrips, { stripFutures: 1 }, date)
        : picker(candidates, flow.classes ?? {}, date);
    if (pool.empty) continue;
    for (let i = 0; i < count; i++) {
      const contract = pool.pick(rng);
      const late = flow.late !== undefined && rng.chance(flow.late);
      const second = late
        ? rng.int(SESSION_SECONDS + 1, LAST_SECOND)
        : flow.kind === 'block' || flow.kind === 'efp' || flow.kind === 'rfq'
          ? rng.int(0, SESSION_SECONDS - 1)
          : sessionSecond(rng);
      actions.push({ kind: flow.kind, second, contract });
    }
  }
  actions.push({ kind: 'close', second: SESSION_SECONDS });
  // Stable: same-second actions keep plan order, so the result depends only on the draws.
  return actions.sort((a, b) => a.second - b.second || closeLast(a) - closeLast(b));
}

/** Within the settlement second, the close runs after anything else stamped 16:00:00. */
function closeLast(action: Action): number {
  return action.kind === 'close' ? 1 : 0;
}
