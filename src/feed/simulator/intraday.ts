import type { FuturesContract } from '../../domain/contract.js';
import { deliveryHours } from '../../domain/hours.js';
import type { Curve } from './curve.js';
import type { Rng } from './prng.js';
import { hoursWeightedCents, isDerived, quarterOfMonth, stripQuarters } from './structure.js';

/** Session length in seconds, 10:00:00 to the 16:00:00 settlement. */
export const SESSION_SECONDS = 6 * 3600;

/**
 * One contract's price over a day, in log distance from today's fair value: a Brownian bridge
 * from where it closed yesterday to a close near today's fair value. Sampled lazily at
 * increasing times, so only contracts that are touched cost anything.
 */
interface Path {
  time: number;
  value: number;
  readonly end: number;
  /** Variance per second of the bridge. */
  readonly variance: number;
}

/** Intraday volatility (per square root of a session) and close dispersion, per product class. */
function noiseOf(contract: FuturesContract): { intraday: number; close: number } {
  switch (contract.product.futuresClass) {
    case 'caps':
      return { intraday: 0.02, close: 0.01 };
    case 'peakQuarterFutures':
      return { intraday: 0.009, close: 0.004 };
    case 'gasFutures':
    case 'environmentalFutures':
      return { intraday: 0.006, close: 0.003 };
    default:
      return { intraday: 0.007, close: 0.003 };
  }
}

/**
 * Prices of one trading day. Primary contracts (quarters, caps, gas months, certificates) each
 * follow their own path; base months move with their quarter, strips are the hours-weighted
 * mean of their quarters, so the curve stays consistent at every instant.
 */
export class IntradayPrices {
  private readonly paths = new Map<string, Path>();
  private readonly contracts = new Map<string, FuturesContract>();

  constructor(
    private readonly curve: Curve,
    /** Yesterday's closing mids (fractional cents) by code. */
    private readonly previousClose: ReadonlyMap<string, number>,
    private readonly rng: Rng,
  ) {}

  /** Mid price in fractional cents at `second` of the session (clamped to the close). */
  mid(contract: FuturesContract, second: number): number {
    if (!isDerived(contract)) return this.curve.fair(contract) * Math.exp(this.sample(contract, second));
    if (contract.product.period === 'month') {
      return this.curve.fair(contract) * Math.exp(this.sample(quarterOfMonth(contract), second));
    }
    const quarters = stripQuarters(contract);
    const mids = quarters.map((quarter) => this.mid(quarter, second));
    return weightedMean(quarters, mids);
  }

  /** Settlement price in whole cents (>= 1 cent); strips exactly from their quarters' settles. */
  settleCents(contract: FuturesContract): number {
    if (isDerived(contract) && contract.product.period === 'year') {
      const quarters = stripQuarters(contract);
      return hoursWeightedCents(
        quarters,
        quarters.map((quarter) => this.settleCents(quarter)),
      );
    }
    return Math.max(1, Math.round(this.mid(contract, SESSION_SECONDS)));
  }

  /** Closing mids of every path walked today, to open tomorrow from. */
  closingMids(): Map<string, number> {
    const closes = new Map<string, number>();
    for (const [code, path] of this.paths) {
      const fair = this.fairOf(code);
      if (fair !== undefined) closes.set(code, fair * Math.exp(path.end));
    }
    return closes;
  }

  private fairOf(code: string): number | undefined {
    const contract = this.contracts.get(code);
    return contract ? this.curve.fair(contract) : undefined;
  }

  private sample(contract: FuturesContract, second: number): number {
    let path = this.paths.get(contract.code);
    if (!path) {
      const noise = noiseOf(contract);
      const fair = this.curve.fair(contract);
      const previous = this.previousClose.get(contract.code);
      const start = previous === undefined ? noise.close * this.rng.normal() : Math.log(previous / fair);
      path = {
        time: 0,
        value: start,
        end: noise.close * this.rng.normal(),
        variance: noise.intraday ** 2 / SESSION_SECONDS,
      };
      this.paths.set(contract.code, path);
      this.contracts.set(contract.code, contract);
    }
    const time = Math.min(second, SESSION_SECONDS);
    if (time <= path.time) return path.value;
    if (time >= SESSION_SECONDS) {
      path.time = SESSION_SECONDS;
      path.value = path.end;
      return path.value;
    }
    // Brownian bridge step from (path.time, value) toward (SESSION_SECONDS, end).
    const remaining = SESSION_SECONDS - path.time;
    const step = time - path.time;
    const mean = path.value + ((path.end - path.value) * step) / remaining;
    const variance = (path.variance * step * (SESSION_SECONDS - time)) / remaining;
    path.time = time;
    path.value = mean + Math.sqrt(variance) * this.rng.normal();
    return path.value;
  }
}

function weightedMean(quarters: readonly FuturesContract[], mids: readonly number[]): number {
  let weighted = 0;
  let hours = 0;
  quarters.forEach((quarter, i) => {
    const legHours = deliveryHours(quarter);
    weighted += legHours * (mids[i] ?? 0);
    hours += legHours;
  });
  return weighted / hours;
}
