import type { Region } from '../../domain/catalogue.js';
import type { Contract } from '../../domain/contract.js';
import { Rng } from './prng.js';
import { futures, isAuStrip, monthsAhead } from './structure.js';

/** Typical open interest of a contract about to deliver, and how fast it thins out along the curve. */
interface Depth {
  readonly scale: number;
  readonly decayMonths: number;
}

function depthOf(contract: Contract): Depth {
  const { product } = contract;
  const nz = product.market === 'nz_electricity';
  switch (product.futuresClass) {
    case 'baseMonthFutures':
      return { scale: nz ? 250 : 350, decayMonths: 3 };
    case 'baseQuarterFutures':
      return { scale: nz ? 1400 : 2800, decayMonths: 14 };
    case 'peakQuarterFutures':
      return { scale: nz ? 200 : 500, decayMonths: 9 };
    case 'caps':
      return { scale: 1200, decayMonths: 9 };
    case 'stripFutures':
    case 'calFutures':
      return { scale: nz ? 500 : 900, decayMonths: 20 };
    case 'gasFutures':
      return { scale: 180, decayMonths: 5 };
    case 'environmentalFutures':
      return { scale: product.root === 'CN' ? 900 : 1500, decayMonths: 18 };
  }
}

const REGION_DEPTH: Partial<Record<Region, number>> = { nsw: 1.15, qld: 1, vic: 1, sa: 0.45, benmore: 0.8 };

/**
 * Open interest per contract, carried from day to day. Every trade opens, transfers or closes
 * positions, so open interest moves by +volume, 0 or -volume and never drops below zero. AU
 * strip futures hold none: their positions live in the quarter legs (see domain/datamine.ts).
 */
export class OpenInterest {
  private positions = new Map<string, number>();
  private started = false;

  constructor(private readonly seed: number) {}

  get(code: string): number {
    return this.positions.get(code) ?? 0;
  }

  /**
   * Keeps the contracts listed today. On the first simulated day they start from a seeded
   * book; afterwards a newly listed contract starts at 0.
   */
  startDay(date: string, listed: readonly Contract[]): void {
    const next = new Map<string, number>();
    for (const contract of listed) {
      const value = this.started ? this.get(contract.code) : this.initial(contract, date);
      if (value > 0) next.set(contract.code, value);
    }
    this.positions = next;
    this.started = true;
  }

  /** Applies one trade of `volume` lots to the given contracts (a strip's legs move together). */
  trade(codes: readonly string[], volume: number, rng: Rng): void {
    if (codes.length === 0) return;
    const held = Math.min(...codes.map((code) => this.get(code)));
    // Large books are more often closed out than added to, which keeps them in range.
    const openShare = 0.44 * Math.min(1, 2000 / Math.max(held, 1));
    const draw = rng.float();
    let change = 0;
    if (draw < openShare) change = volume;
    else if (draw > 0.7) change = -Math.min(volume, held);
    if (change === 0) return;
    for (const code of codes) this.positions.set(code, this.get(code) + change);
  }

  private initial(contract: Contract, date: string): number {
    if (contract.kind === 'future' && isAuStrip(contract)) return 0;
    const underlying =
      contract.kind === 'option' ? futures(contract.product.root, contract.month, contract.year) : contract;
    const depth = depthOf(underlying);
    const rng = Rng.derive(this.seed, 'initial-open-interest', contract.code);
    const ahead = Math.max(0, monthsAhead(underlying, date));
    let value =
      depth.scale *
      (REGION_DEPTH[contract.product.region] ?? 1) *
      Math.exp(-ahead / depth.decayMonths) *
      Math.exp(0.5 * rng.normal());
    if (contract.kind === 'option') {
      // Open interest gathers near the money (strikes are centred on the reference price).
      const moneyness = Math.log(contract.strikeCents / contract.product.referencePriceCents);
      value *= 0.3 * Math.exp(-Math.abs(moneyness) / 0.07);
    }
    return value < 5 ? 0 : Math.round(value);
  }
}
