import type { Contract } from './contract.js';

/** Product classes of the datamine tables (docs/api.md, GET /api/datamine: field names). */
export type DatamineClass =
  | 'baseMonthFutures'
  | 'baseQuarterFutures'
  | 'peakQuarterFutures'
  | 'caps'
  | 'calFutures'
  | 'averageOptions'
  | 'calOptions'
  | 'finOptions'
  | 'peakOptions';

export const FUTURES_CLASSES: readonly DatamineClass[] = [
  'baseMonthFutures',
  'baseQuarterFutures',
  'peakQuarterFutures',
  'caps',
  'calFutures',
];

/**
 * The datamine class of a contract, or undefined when it is not counted:
 * - gas and environmental products are outside the datamine tables;
 * - AU strip futures trade as their quarter legs (trade type Z), and the legs count in the
 *   quarter class (docs/market-rules.md, datamine statistics), so the strip row itself is not
 *   counted again; for the same reason AU strips hold no open interest of their own.
 * NZ strips trade on their own and are the NZ table's calFutures.
 */
export function datamineClass(contract: Contract): DatamineClass | undefined {
  const { product } = contract;
  if (product.market !== 'au_electricity' && product.market !== 'nz_electricity') return undefined;
  if (contract.kind === 'future') {
    switch (product.futuresClass) {
      case 'baseMonthFutures':
      case 'baseQuarterFutures':
      case 'peakQuarterFutures':
      case 'caps':
      case 'calFutures':
        return product.futuresClass;
      default:
        return undefined;
    }
  }
  if (product.period === 'quarter') return product.load === 'peak' ? 'peakOptions' : 'averageOptions';
  if (product.period === 'year') return contract.month === 6 ? 'finOptions' : 'calOptions';
  return undefined;
}

/**
 * Quarterly equivalent lots, in thirds so that months stay exact: a month counts 1/3 of a
 * quarter (1), a quarter 1 (3), a year strip or strip option 4 (12) (docs/market-rules.md, datamine
 * statistics).
 */
export function quarterlyEquivalentThirds(contract: Contract): number {
  switch (contract.product.period) {
    case 'month':
      return 1;
    case 'quarter':
      return 3;
    case 'year':
      return 12;
  }
}
