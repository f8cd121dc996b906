import { SETTLEMENT_TIME } from '../../domain/calendar.js';
import { sydneyUnixSeconds } from '../../domain/dates.js';
import { divideRounded } from '../../domain/decimal.js';
import type { IndexName } from '../events.js';
import { optionValue } from './pricing.js';
import type { DayContext } from './session.js';
import { futures, isAuStrip } from './structure.js';

/**
 * The calendar strips averaged by each index (docs/api.md, GET /api/epi and GET /api/npi: epi over AU
 * regions, npi over NZ nodes).
 */
const INDEX_STRIPS: ReadonlyArray<{ readonly index: IndexName; readonly roots: readonly string[] }> = [
  { index: 'epi', roots: ['HN', 'HQ', 'HV', 'HS'] },
  { index: 'npi', roots: ['EB', 'EF'] },
];

/**
 * The close: a settle for every listed contract, then its open interest, then the index values,
 * all stamped 16:00:00. Futures settle at their closing mid (strips exactly at the hours-weighted
 * mean of their quarters' settles); options at Black-76 on the underlying's settle.
 */
export function settle(context: DayContext, second: number): void {
  const { date, log, prices } = context;
  const { listed } = context.listing;
  const settles = new Map<string, number>();
  for (const contract of listed) {
    if (contract.kind === 'future') settles.set(contract.code, prices.settleCents(contract));
  }
  const publishedAt = sydneyUnixSeconds(date, SETTLEMENT_TIME);
  for (const contract of listed) {
    if (contract.kind === 'future') {
      log.settle(second, contract.code, settles.get(contract.code) ?? 1, publishedAt);
      continue;
    }
    const forward =
      settles.get(contract.underlying) ??
      prices.settleCents(futures(contract.product.root, contract.month, contract.year));
    const value = optionValue(
      contract,
      forward,
      date,
      context.curve.volatilityFactor(contract.product.market),
    );
    log.settle(second, contract.code, value.premiumCents, publishedAt, value.volatilityBasisPoints);
  }
  for (const contract of listed) {
    const openInterest =
      contract.kind === 'future' && isAuStrip(contract) ? 0 : context.openInterest.get(contract.code);
    log.openInterest(second, contract.code, openInterest);
  }
  for (const { index, roots } of INDEX_STRIPS) {
    for (const year of indexYears(settles, roots)) {
      const total = roots.reduce((sum, root) => sum + (settles.get(`${root}Z${year}`) ?? 0), 0);
      log.index(second, index, year, divideRounded(total, roots.length));
    }
  }
}

/** Years in which every one of the roots lists its calendar (Z) strip, ascending. */
function indexYears(settles: ReadonlyMap<string, number>, roots: readonly string[]): number[] {
  const years: number[] = [];
  for (const code of settles.keys()) {
    const [first] = roots;
    if (first === undefined || !code.startsWith(`${first}Z`)) continue;
    const year = Number(code.slice(3));
    if (roots.every((root) => settles.has(`${root}Z${year}`))) years.push(year);
  }
  return years.sort((a, b) => a - b);
}
