import {
  divideRoundedBig,
  formatScaled,
  formatScaledBig,
  PRICE_SCALE,
  rescaleDown,
  VOLATILITY_SCALE,
} from '../domain/decimal.js';

/**
 * The number formats of docs/api.md (common rules, "Numbers"), from the store's scaled
 * integers. Every formatter returns null for an absent value; the writers decide whether that
 * becomes JSON null, an empty string or an empty CSV cell.
 */

/** Cents -> "84.50". */
export function price(cents: number | null): string | null {
  return cents === null ? null : formatScaled(cents, PRICE_SCALE);
}

/** Hundredths of a percent -> "22.28". */
export function volatility(hundredths: number | null): string | null {
  return hundredths === null ? null : formatScaled(hundredths, VOLATILITY_SCALE);
}

export function integer(value: number | null): string | null {
  return value === null ? null : String(value);
}

/** Millis (1/1000 $) -> cents, half up: the money columns show 2 decimals. */
export function millisToCents(millis: number): number {
  return rescaleDown(millis, 1);
}

/** total / days with 2 decimals, half up; "0.00" when there are no days. */
export function average(total: bigint, days: number): string {
  return days > 0 ? formatScaledBig(divideRoundedBig(total * 100n, BigInt(days)), 2) : '0.00';
}

/** HHmmss -> HH:mm:ss (the trade log's time). */
export function colonTime(time: string): string {
  return `${time.slice(0, 2)}:${time.slice(2, 4)}:${time.slice(4, 6)}`;
}
