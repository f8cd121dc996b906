/**
 * Exact fixed-point decimals. Every price, premium, volatility and sum is held as an integer
 * count of its smallest unit (a "scaled integer"), never as a binary float: 84.50 with scale 2
 * is 8450. One amount stays inside Number.MAX_SAFE_INTEGER (the feed's limits, docs/feed-format.md
 * "Limits"), and every operation here asserts that it does; sums that can pass it (MWh and face
 * values over many trades or contracts) are bigint and use the *Big forms.
 */

const DECIMAL = /^(-)?(\d{1,15})(?:\.(\d{1,15}))?$/;

/**
 * Parses a decimal string into an integer of the given scale. Returns undefined when the text
 * is not a plain decimal or has more decimals than the scale allows (no silent rounding).
 */
export function parseScaled(text: string, scale: number): number | undefined {
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const [, sign, whole = '', fraction = ''] = match;
  if (fraction.length > scale) return undefined;
  const digits = whole + fraction.padEnd(scale, '0');
  const value = Number(digits);
  if (!Number.isSafeInteger(value)) return undefined;
  return sign && value !== 0 ? -value : value;
}

/** Formats a scaled integer with exactly `scale` decimals: (8450, 2) -> "84.50". */
export function formatScaled(value: number, scale: number): string {
  assertSafe(value);
  const negative = value < 0;
  const digits = String(Math.abs(value)).padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${text}` : text;
}

/**
 * Divides a scaled integer by 10^places, rounding half away from zero (the market's "half up"
 * for positive amounts): (2208220_8, 1) -> 2208221.
 */
export function rescaleDown(value: number, places: number): number {
  assertSafe(value);
  if (places === 0) return value;
  const divisor = 10 ** places;
  const quotient = Math.trunc(value / divisor);
  const remainder = Math.abs(value - quotient * divisor);
  const roundAway = remainder * 2 >= divisor;
  return roundAway ? quotient + Math.sign(value) : quotient;
}

/** Integer division of a non-negative numerator, rounding half up: (7, 3) -> 2, (3, 2) -> 2. */
export function divideRounded(numerator: number, denominator: number): number {
  assertSafe(numerator);
  if (denominator <= 0 || !Number.isSafeInteger(denominator)) throw new RangeError('bad denominator');
  const sign = numerator < 0 ? -1 : 1;
  const magnitude = Math.abs(numerator);
  const quotient = Math.floor(magnitude / denominator);
  const remainder = magnitude - quotient * denominator;
  return sign * (remainder * 2 >= denominator ? quotient + 1 : quotient);
}

export function assertSafe(value: number): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`not an exact integer amount: ${value}`);
}

/** Exact product of integers, refusing results outside the safe integer range. */
export function multiplyExact(...factors: number[]): number {
  let product = 1;
  for (const factor of factors) {
    assertSafe(factor);
    product *= factor;
    assertSafe(product);
  }
  return product;
}

/** formatScaled for a bigint: (845000000000000000n, 2) -> "8450000000000000.00". */
export function formatScaledBig(value: bigint, scale: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${text}` : text;
}

/** divideRounded for bigints, rounding half away from zero: (-7n, 2n) -> -4n. */
export function divideRoundedBig(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError('bad denominator');
  const negative = numerator < 0n;
  const magnitude = negative ? -numerator : numerator;
  const quotient = magnitude / denominator;
  const rounded = (magnitude % denominator) * 2n >= denominator ? quotient + 1n : quotient;
  return negative ? -rounded : rounded;
}

/** Scales used across the project, so every module agrees on units. */
export const PRICE_SCALE = 2; // cents
export const VOLATILITY_SCALE = 2; // hundredths of a percent
