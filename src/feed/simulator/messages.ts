import { type FuturesContract, monthLetter } from '../../domain/contract.js';
import type { CustomMarketLeg } from '../events.js';
import { cents } from './event-log.js';
import type { Rng } from './prng.js';

/** The board's older notation: root + month letter + one-digit year (HNZ2026 -> HNZ6). */
export function shortCode(contract: FuturesContract): string {
  return `${contract.product.root}${monthLetter(contract.month)}${contract.year % 10}`;
}

/** A request for quote, mostly on one contract, sometimes on a spread of two. */
export function rfqText(rng: Rng, contract: FuturesContract, other: FuturesContract | undefined): string {
  if (other && rng.chance(0.2)) return `RFQ: ${shortCode(contract)}/${shortCode(other)}`;
  return `RFQ: ${shortCode(contract)}`;
}

export function blockNoticeText(contract: FuturesContract, volume: number): string {
  return `Block trade: ${shortCode(contract)} ${volume} lots`;
}

/** The registered-trades line of a block (or EFP): `Block: BNH2026 25 lots @ 84.50`. */
export function registeredText(
  kind: 'Block' | 'EFP',
  code: string,
  volume: number,
  priceCents: number,
): string {
  return `${kind}: ${code} ${volume} lots @ ${cents(priceCents)}`;
}

export interface CustomMarket {
  readonly contract: string;
  readonly netCents: number;
  readonly legs: readonly CustomMarketLeg[];
}

interface Leg {
  readonly contract: FuturesContract;
  readonly ratio: number;
}

/**
 * A user-defined market of 1 to 6 legs with integer ratios, so that net = sum(ratio x price)
 * is exact in cents: an outright, a calendar spread, a regional spread, a butterfly, a year's
 * four quarters or six consecutive months. `listed` are the market's listed futures by code.
 */
export function customMarket(
  rng: Rng,
  listed: readonly FuturesContract[],
  priceCents: (contract: FuturesContract) => number,
): CustomMarket | undefined {
  const legs = pickLegs(rng, listed);
  if (!legs || legs.length === 0 || legs.length > 6) return undefined;
  let netCents = 0;
  const out: CustomMarketLeg[] = [];
  for (const leg of legs) {
    const price = priceCents(leg.contract);
    netCents += leg.ratio * price;
    out.push({ price: cents(price), ratio: cents(leg.ratio * 100) });
  }
  return { contract: legName(legs), netCents, legs: out };
}

function legName(legs: readonly Leg[]): string {
  return legs
    .map((leg, i) => {
      const sign = leg.ratio < 0 ? '-' : i === 0 ? '' : '+';
      const size = Math.abs(leg.ratio) === 1 ? '' : `${Math.abs(leg.ratio)}x`;
      return `${sign}${size}${leg.contract.code}`;
    })
    .join('');
}

function byDelivery(a: FuturesContract, b: FuturesContract): number {
  return a.year * 12 + a.month - (b.year * 12 + b.month);
}

function pickLegs(rng: Rng, listed: readonly FuturesContract[]): Leg[] | undefined {
  const quarters = listed.filter((c) => c.product.futuresClass === 'baseQuarterFutures');
  const months = listed.filter((c) => c.product.futuresClass === 'baseMonthFutures');
  if (quarters.length === 0) return undefined;
  const byRoot = new Map<string, FuturesContract[]>();
  for (const quarter of [...quarters].sort(byDelivery)) {
    const list = byRoot.get(quarter.product.root) ?? [];
    list.push(quarter);
    byRoot.set(quarter.product.root, list);
  }
  // Near contracts dominate custom markets, as they dominate trading.
  const anchor = rng.pick([...byRoot.values()].flatMap((list) => list.slice(0, 5)));
  const sameRoot = byRoot.get(anchor.product.root) ?? [anchor];
  const position = sameRoot.indexOf(anchor);
  const after = (n: number) => sameRoot.slice(position, position + n);
  const shape = rng.weightedIndex([2, 5, 4, 2, 1, 1]);
  switch (shape) {
    case 0:
      return [{ contract: anchor, ratio: 1 }];
    case 1: {
      const pair = after(2);
      const [first, second] = pair;
      return first && second
        ? [
            { contract: first, ratio: 1 },
            { contract: second, ratio: -1 },
          ]
        : undefined;
    }
    case 2: {
      const others = quarters.filter(
        (c) => c.product !== anchor.product && c.month === anchor.month && c.year === anchor.year,
      );
      if (others.length === 0) return undefined;
      return [
        { contract: anchor, ratio: 1 },
        { contract: rng.pick(others), ratio: -1 },
      ];
    }
    case 3: {
      const [a, b, c] = after(3);
      return a && b && c
        ? [
            { contract: a, ratio: 1 },
            { contract: b, ratio: -2 },
            { contract: c, ratio: 1 },
          ]
        : undefined;
    }
    case 4: {
      const year = sameRoot.filter((c) => c.year === anchor.year);
      return year.length === 4 ? year.map((contract) => ({ contract, ratio: 1 })) : undefined;
    }
    default: {
      const regional = months.filter((c) => c.product.region === anchor.product.region).sort(byDelivery);
      return regional.length >= 6
        ? regional.slice(0, 6).map((contract) => ({ contract, ratio: 1 }))
        : undefined;
    }
  }
}
