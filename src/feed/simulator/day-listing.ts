import type { Contract, FuturesContract, OptionContract } from '../../domain/contract.js';
import { listedContracts } from '../../domain/listing.js';
import type { MarketCode } from '../../domain/markets.js';
import { isAuStrip, stripQuarters } from './structure.js';

/** What is listed on a trading day, in the shapes the simulator looks things up by. */
export interface DayListing {
  /** Every listed contract, futures and options, sorted by code. */
  readonly listed: readonly Contract[];
  /** Listed futures by market, sorted by code. */
  readonly futures: ReadonlyMap<MarketCode, readonly FuturesContract[]>;
  /** Listed options of each underlying (futures code), sorted by code. */
  readonly optionsByUnderlying: ReadonlyMap<string, readonly OptionContract[]>;
  /** Underlyings that have listed options, sorted by code. */
  readonly optionUnderlyings: readonly FuturesContract[];
  /** AU strips whose four quarter legs are all listed: only these can trade as legs. */
  readonly tradableStrips: readonly FuturesContract[];
}

export function dayListing(date: string): DayListing {
  const listed = listedContracts(date);
  const futures = new Map<MarketCode, FuturesContract[]>();
  const byCode = new Map<string, FuturesContract>();
  const optionsByUnderlying = new Map<string, OptionContract[]>();
  for (const contract of listed) {
    if (contract.kind === 'future') {
      const list = futures.get(contract.product.market) ?? [];
      list.push(contract);
      futures.set(contract.product.market, list);
      byCode.set(contract.code, contract);
    } else {
      const list = optionsByUnderlying.get(contract.underlying) ?? [];
      list.push(contract);
      optionsByUnderlying.set(contract.underlying, list);
    }
  }
  const optionUnderlyings: FuturesContract[] = [];
  for (const code of [...optionsByUnderlying.keys()].sort()) {
    const underlying = byCode.get(code);
    if (underlying) optionUnderlyings.push(underlying);
  }
  const tradableStrips = [...byCode.values()].filter(
    (contract) => isAuStrip(contract) && stripQuarters(contract).every((leg) => byCode.has(leg.code)),
  );
  return { listed, futures, optionsByUnderlying, optionUnderlyings, tradableStrips };
}
